// bench:engine's Qwen3.5 phase: random Qwen3.5-0.8B- and 2B-shaped bf16 folders (Gated DeltaNet
// layers, tied 248k vocabulary) and Llama-shaped folders of the same width beside them, each loaded
// in a child process of its own straight into the CPU decoder's memory; prefill and decode tokens/s
// and the child's peak RSS, so the linear layers' cost and the weights' memory show. Also what the
// 4B shape's weights would take. Run alone: `node bench/engine-hybrid.ts` (ends with its JSON line).
import { spawnSync } from 'node:child_process';
import {
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  CpuDecoder,
  decoderConfigFromHf,
  loadHfDecoderModel,
  paramCount,
  WeightArenas,
} from '../training/engine/index.ts';

interface Shape {
  name: string;
  hidden: number;
  intermediate: number;
  layers: number;
  heads: number;
  kvHeads: number;
  headDim: number;
  linearKeyHeads: number;
  linearValueHeads: number;
  linearHeadDim: number;
}

const VOCAB = 248_320;
// Qwen3.5's published text shapes (head_dim 256, partial rotary 0.25, every 4th layer attention).
const SHAPES: Shape[] = [
  {
    name: '0.8B',
    hidden: 1024,
    intermediate: 3584,
    layers: 24,
    heads: 8,
    kvHeads: 2,
    headDim: 256,
    linearKeyHeads: 16,
    linearValueHeads: 16,
    linearHeadDim: 128,
  },
  {
    name: '2B',
    hidden: 2048,
    intermediate: 6144,
    layers: 24,
    heads: 8,
    kvHeads: 2,
    headDim: 256,
    linearKeyHeads: 16,
    linearValueHeads: 16,
    linearHeadDim: 128,
  },
  {
    name: '4B',
    hidden: 2560,
    intermediate: 9216,
    layers: 32,
    heads: 16,
    kvHeads: 4,
    headDim: 256,
    linearKeyHeads: 16,
    linearValueHeads: 32,
    linearHeadDim: 128,
  },
];

function qwenConfig(s: Shape): Record<string, unknown> {
  return {
    architectures: ['Qwen3_5ForConditionalGeneration'],
    model_type: 'qwen3_5',
    tie_word_embeddings: true,
    text_config: {
      model_type: 'qwen3_5_text',
      hidden_size: s.hidden,
      intermediate_size: s.intermediate,
      num_hidden_layers: s.layers,
      num_attention_heads: s.heads,
      num_key_value_heads: s.kvHeads,
      head_dim: s.headDim,
      linear_num_key_heads: s.linearKeyHeads,
      linear_num_value_heads: s.linearValueHeads,
      linear_key_head_dim: s.linearHeadDim,
      linear_value_head_dim: s.linearHeadDim,
      linear_conv_kernel_dim: 4,
      full_attention_interval: 4,
      vocab_size: VOCAB,
      max_position_embeddings: 262_144,
      rms_norm_eps: 1e-6,
      rope_parameters: {
        rope_type: 'default',
        rope_theta: 10_000_000,
        partial_rotary_factor: 0.25,
      },
    },
    vision_config: { model_type: 'qwen3_5_vision' },
  };
}

function llamaConfig(s: Shape): Record<string, unknown> {
  return {
    architectures: ['LlamaForCausalLM'],
    model_type: 'llama',
    hidden_size: s.hidden,
    intermediate_size: s.intermediate,
    num_hidden_layers: s.layers,
    num_attention_heads: s.heads,
    num_key_value_heads: s.kvHeads,
    head_dim: s.hidden / s.heads,
    vocab_size: VOCAB,
    max_position_embeddings: 4096,
    rms_norm_eps: 1e-6,
    tie_word_embeddings: true,
  };
}

/** [name, shape] of every tensor of the folder, in file order. */
function tensorsOf(s: Shape, qwen: boolean): [string, number[]][] {
  const D = s.hidden;
  const out: [string, number[]][] = [];
  const root = qwen ? 'model.language_model.' : 'model.';
  out.push([`${root}embed_tokens.weight`, [VOCAB, D]]);
  for (let l = 0; l < s.layers; l++) {
    const p = `${root}layers.${l}.`;
    out.push([`${p}input_layernorm.weight`, [D]], [`${p}post_attention_layernorm.weight`, [D]]);
    if (qwen && (l + 1) % 4 !== 0) {
      const keyDim = s.linearKeyHeads * s.linearHeadDim;
      const valueDim = s.linearValueHeads * s.linearHeadDim;
      const a = `${p}linear_attn.`;
      out.push(
        [`${a}in_proj_qkv.weight`, [2 * keyDim + valueDim, D]],
        [`${a}in_proj_z.weight`, [valueDim, D]],
        [`${a}in_proj_b.weight`, [s.linearValueHeads, D]],
        [`${a}in_proj_a.weight`, [s.linearValueHeads, D]],
        [`${a}conv1d.weight`, [2 * keyDim + valueDim, 1, 4]],
        [`${a}A_log`, [s.linearValueHeads]],
        [`${a}dt_bias`, [s.linearValueHeads]],
        [`${a}norm.weight`, [s.linearHeadDim]],
        [`${a}out_proj.weight`, [D, valueDim]],
      );
    } else {
      const hd = qwen ? s.headDim : D / s.heads;
      const a = `${p}self_attn.`;
      out.push(
        [`${a}q_proj.weight`, [s.heads * hd * (qwen ? 2 : 1), D]],
        [`${a}k_proj.weight`, [s.kvHeads * hd, D]],
        [`${a}v_proj.weight`, [s.kvHeads * hd, D]],
        [`${a}o_proj.weight`, [D, s.heads * hd]],
      );
      if (qwen) out.push([`${a}q_norm.weight`, [hd]], [`${a}k_norm.weight`, [hd]]);
    }
    out.push(
      [`${p}mlp.gate_proj.weight`, [s.intermediate, D]],
      [`${p}mlp.up_proj.weight`, [s.intermediate, D]],
      [`${p}mlp.down_proj.weight`, [D, s.intermediate]],
    );
  }
  out.push([`${root}norm.weight`, [D]]);
  return out;
}

/** Streams a bf16 safetensors file of small random values without holding it in memory. */
function writeRandomFolder(
  folder: string,
  config: Record<string, unknown>,
  tensors: [string, number[]][],
): number {
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, 'config.json'), JSON.stringify(config));
  const header: Record<string, unknown> = { __metadata__: {} };
  let offset = 0;
  for (const [name, shape] of tensors) {
    const bytes = shape.reduce((a, b) => a * b, 1) * 2;
    header[name] = { dtype: 'BF16', shape, data_offsets: [offset, offset + bytes] };
    offset += bytes;
  }
  let json = JSON.stringify(header);
  json += ' '.repeat((8 - (json.length % 8)) % 8);
  const fd = openSync(join(folder, 'model.safetensors'), 'w');
  try {
    const length = Buffer.alloc(8);
    length.writeBigUInt64LE(BigInt(Buffer.byteLength(json)));
    writeSync(fd, length);
    writeSync(fd, json);
    let state = 12345;
    const chunk = new Uint16Array(1 << 22);
    for (const [name, shape] of tensors) {
      let left = shape.reduce((a, b) => a * b, 1);
      const fanIn = shape.at(-1) ?? 1;
      // bf16 of +-sqrt(3 / fanIn) scaled uniforms (norms near 0: Qwen3.5 stores them zero-centred).
      const scale = name.includes('norm') || name.includes('A_log') ? 0.01 : Math.sqrt(3 / fanIn);
      while (left > 0) {
        const n = Math.min(left, chunk.length);
        const f = new Float32Array(1);
        const bits = new Uint32Array(f.buffer);
        for (let i = 0; i < n; i++) {
          state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
          f[0] = (state / 2 ** 32 - 0.5) * 2 * scale;
          chunk[i] = (bits[0] ?? 0) >>> 16;
        }
        writeSync(fd, chunk.subarray(0, n));
        left -= n;
      }
    }
  } finally {
    closeSync(fd);
  }
  return offset;
}

interface ChildFigures {
  prefill_tok_per_s: number;
  decode_tok_per_s: number;
  peak_rss_mb: number;
  load_s: number;
  weights_gb: number;
  implementation: string;
}

/** In the child: load in place, prefill 16 tokens in one step, decode 8 one by one. */
function measure(folder: string): void {
  const started = performance.now();
  const arenas = WeightArenas.create();
  if (!arenas) throw new Error('WebAssembly SIMD is unavailable');
  const { model, notes } = loadHfDecoderModel(folder, { store: arenas });
  const loadS = (performance.now() - started) / 1000;
  for (const note of notes) console.error(`  loader: ${note}`);
  const decoder = new CpuDecoder(model, { arenas, maxSeqLen: 64 });
  const prompt = Array.from({ length: 16 }, (_, i) => (i * 7919) % VOCAB);
  let t = performance.now();
  decoder.stepSync(prompt.map((token, pos) => ({ slot: 0, token, pos })));
  const prefill = 16 / ((performance.now() - t) / 1000);
  t = performance.now();
  for (let pos = 16; pos < 24; pos++) decoder.stepSync([{ slot: 0, token: pos * 31, pos }]);
  const decode = 8 / ((performance.now() - t) / 1000);
  const figures: ChildFigures = {
    prefill_tok_per_s: Math.round(prefill * 100) / 100,
    decode_tok_per_s: Math.round(decode * 100) / 100,
    peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024),
    load_s: Math.round(loadS * 10) / 10,
    weights_gb: Number(/weights take ([\d.]+) GB/.exec(notes.join(' '))?.[1] ?? 'NaN'),
    implementation: decoder.implementation,
  };
  console.log(JSON.stringify(figures));
}

export function benchHybrid(figures: Record<string, number | string | null>, quick: boolean): void {
  const dir = mkdtempSync(join(tmpdir(), 'rlm-bench-hybrid-'));
  const self = fileURLToPath(import.meta.url);
  try {
    for (const shape of SHAPES) {
      const qwen = decoderConfigFromHf('bench', qwenConfig(shape));
      const llama = decoderConfigFromHf('bench', llamaConfig(shape));
      figures[`qwen35_${shape.name}_params`] = paramCount(qwen);
      figures[`qwen35_${shape.name}_bf16_weights_gb`] =
        Math.round((paramCount(qwen) * 2) / 1e7) / 100;
      if (shape.name === '4B' || (quick && shape.name !== '0.8B')) continue;
      for (const [kind, config] of [
        ['qwen35', qwenConfig(shape)],
        ['llama', llamaConfig(shape)],
      ] as const) {
        const folder = join(dir, `${kind}-${shape.name}`);
        const bytes = writeRandomFolder(folder, config, tensorsOf(shape, kind === 'qwen35'));
        console.log(
          `${kind} ${shape.name}: ${(bytes / 1e9).toFixed(2)} GB written; loading in a child`,
        );
        const child = spawnSync(process.execPath, [self, '--measure', folder], {
          encoding: 'utf8',
          stdio: ['ignore', 'pipe', 'inherit'],
        });
        rmSync(folder, { recursive: true, force: true });
        const line = child.stdout.trim().split('\n').at(-1) ?? '';
        if (child.status !== 0 || !line.startsWith('{')) {
          figures[`${kind}_${shape.name}_error`] = `child exited ${child.status}`;
          continue;
        }
        const got = JSON.parse(line) as ChildFigures;
        console.log(`  ${got.implementation}: ${JSON.stringify(got)}`);
        const tag = `${kind}_${shape.name}_wasm`;
        figures[`${tag}_params`] = paramCount(kind === 'qwen35' ? qwen : llama);
        figures[`${tag}_prefill_tok_per_s`] = got.prefill_tok_per_s;
        figures[`${tag}_decode_tok_per_s`] = got.decode_tok_per_s;
        figures[`${tag}_peak_rss_mb`] = got.peak_rss_mb;
        figures[`${tag}_load_s`] = got.load_s;
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const at = process.argv.indexOf('--measure');
  const folder = at > 0 ? process.argv[at + 1] : undefined;
  if (folder) {
    measure(folder);
  } else {
    const figures: Record<string, number | string | null> = {};
    benchHybrid(figures, process.env.BENCH_QUICK === '1');
    console.log(JSON.stringify(figures));
  }
}
