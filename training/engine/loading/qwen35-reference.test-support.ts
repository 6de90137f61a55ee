// Test-only: tiny random Qwen3.5 text models written as Hugging Face folders (both layouts, any
// dtype, sharded), and a float64 forward pass over their raw tensors written from Hugging Face's
// modeling_qwen3_5.py: zero-centred RMSNorms (x 1 + w), Gated DeltaNet (conv1d state, L2-normed
// q/k, beta, decay from A_log and dt_bias, grouped value heads, the chunked delta rule with its
// triangular solve or the token recurrence), gated attention with partial rotary.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeSafetensorsFolder } from './hf-export.ts';
import { writeTinyTokenizer } from './hf-tokenizer.test-support.ts';
import type { TensorToWrite } from './safetensors.ts';

export interface Qwen35Spec {
  hidden: number;
  intermediate: number;
  layerTypes: readonly ('linear_attention' | 'full_attention')[];
  heads: number;
  kvHeads: number;
  headDim: number;
  linearKeyHeads: number;
  linearValueHeads: number;
  linearKeyHeadDim: number;
  linearValueHeadDim: number;
  convKernel: number;
  vocab: number;
  partialRotary: number;
  tied: boolean;
  ropeTheta: number;
  eps: number;
}

export const TINY_QWEN35: Qwen35Spec = {
  hidden: 32,
  intermediate: 48,
  layerTypes: ['linear_attention', 'linear_attention', 'full_attention'],
  heads: 4,
  kvHeads: 2,
  headDim: 16,
  linearKeyHeads: 2,
  linearValueHeads: 4,
  linearKeyHeadDim: 8,
  linearValueHeadDim: 6,
  convKernel: 4,
  vocab: 263,
  partialRotary: 0.25,
  tied: true,
  ropeTheta: 10_000_000,
  eps: 1e-6,
};

/** A text model's tensors under names relative to the text model (`layers.0.…`, `lm_head.weight`). */
export type RawTensors = Map<string, { shape: number[]; data: Float32Array }>;

/** Seeded weights k / 2^s with |k| < 128, exact in bf16 and f16 so every dtype loads the same. */
export function tinyQwen35Tensors(spec: Qwen35Spec, seed: number): RawTensors {
  let state = seed >>> 0;
  const next = (): number => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
  const out: RawTensors = new Map();
  const put = (name: string, shape: number[], shift: number, offset = 0): void => {
    const n = shape.reduce((a, b) => a * b, 1);
    const data = Float32Array.from(
      { length: n },
      () => offset + Math.round((next() * 2 - 1) * 127) / 2 ** shift,
    );
    out.set(name, { shape, data });
  };
  const D = spec.hidden;
  const keyDim = spec.linearKeyHeads * spec.linearKeyHeadDim;
  const valueDim = spec.linearValueHeads * spec.linearValueHeadDim;
  const convDim = 2 * keyDim + valueDim;
  put('embed_tokens.weight', [spec.vocab, D], 7);
  spec.layerTypes.forEach((type, l) => {
    const p = `layers.${l}.`;
    put(`${p}input_layernorm.weight`, [D], 9);
    put(`${p}post_attention_layernorm.weight`, [D], 9);
    if (type === 'linear_attention') {
      put(`${p}linear_attn.in_proj_qkv.weight`, [convDim, D], 8);
      put(`${p}linear_attn.in_proj_z.weight`, [valueDim, D], 8);
      put(`${p}linear_attn.in_proj_b.weight`, [spec.linearValueHeads, D], 8);
      put(`${p}linear_attn.in_proj_a.weight`, [spec.linearValueHeads, D], 8);
      put(`${p}linear_attn.conv1d.weight`, [convDim, 1, spec.convKernel], 7);
      put(`${p}linear_attn.A_log`, [spec.linearValueHeads], 6);
      put(`${p}linear_attn.dt_bias`, [spec.linearValueHeads], 7, 1);
      put(`${p}linear_attn.norm.weight`, [spec.linearValueHeadDim], 7, 1);
      put(`${p}linear_attn.out_proj.weight`, [D, valueDim], 8);
    } else {
      put(`${p}self_attn.q_proj.weight`, [spec.heads * spec.headDim * 2, D], 8);
      put(`${p}self_attn.k_proj.weight`, [spec.kvHeads * spec.headDim, D], 8);
      put(`${p}self_attn.v_proj.weight`, [spec.kvHeads * spec.headDim, D], 8);
      put(`${p}self_attn.o_proj.weight`, [D, spec.heads * spec.headDim], 8);
      put(`${p}self_attn.q_norm.weight`, [spec.headDim], 9);
      put(`${p}self_attn.k_norm.weight`, [spec.headDim], 9);
    }
    put(`${p}mlp.gate_proj.weight`, [spec.intermediate, D], 8);
    put(`${p}mlp.up_proj.weight`, [spec.intermediate, D], 8);
    put(`${p}mlp.down_proj.weight`, [D, spec.intermediate], 8);
  });
  put('norm.weight', [D], 9);
  if (!spec.tied) put('lm_head.weight', [spec.vocab, D], 8);
  return out;
}

export interface Qwen35FolderOptions {
  /** 'conditional': Qwen3_5ForConditionalGeneration (text_config nested, model.language_model.). */
  layout: 'causal' | 'conditional';
  dtype?: 'F32' | 'F16' | 'BF16';
  shards?: number;
  /** Also write a vision tower's and MTP tensors, which the loader must not read. */
  extras?: boolean;
  /** Write layer_types out (else full_attention_interval stands for them). */
  explicitLayerTypes?: boolean;
}

export function qwen35ConfigJson(
  spec: Qwen35Spec,
  options: Qwen35FolderOptions,
): Record<string, unknown> {
  const text: Record<string, unknown> = {
    model_type: options.layout === 'conditional' ? 'qwen3_5_text' : 'qwen3_5',
    hidden_size: spec.hidden,
    intermediate_size: spec.intermediate,
    num_hidden_layers: spec.layerTypes.length,
    num_attention_heads: spec.heads,
    num_key_value_heads: spec.kvHeads,
    head_dim: spec.headDim,
    linear_num_key_heads: spec.linearKeyHeads,
    linear_num_value_heads: spec.linearValueHeads,
    linear_key_head_dim: spec.linearKeyHeadDim,
    linear_value_head_dim: spec.linearValueHeadDim,
    linear_conv_kernel_dim: spec.convKernel,
    vocab_size: spec.vocab,
    rms_norm_eps: spec.eps,
    max_position_embeddings: 256,
    hidden_act: 'silu',
    rope_parameters: {
      rope_type: 'default',
      rope_theta: spec.ropeTheta,
      partial_rotary_factor: spec.partialRotary,
      mrope_section: [2, 1, 1],
      mrope_interleaved: true,
    },
    ...(options.explicitLayerTypes === false
      ? { full_attention_interval: 3 }
      : { layer_types: spec.layerTypes }),
    eos_token_id: 262,
  };
  if (options.layout === 'causal') {
    return { architectures: ['Qwen3_5ForCausalLM'], ...text, tie_word_embeddings: spec.tied };
  }
  return {
    architectures: ['Qwen3_5ForConditionalGeneration'],
    model_type: 'qwen3_5',
    tie_word_embeddings: spec.tied,
    text_config: text,
    vision_config: { model_type: 'qwen3_5_vision', depth: 1, hidden_size: 8 },
  };
}

export function writeTinyQwen35(
  folder: string,
  spec: Qwen35Spec,
  tensors: RawTensors,
  options: Qwen35FolderOptions,
): void {
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, 'config.json'), JSON.stringify(qwen35ConfigJson(spec, options)));
  const prefix = options.layout === 'conditional' ? 'model.language_model.' : 'model.';
  const dtype = options.dtype ?? 'F32';
  const entries: [string, TensorToWrite][] = [...tensors].map(([name, t]) => [
    name === 'lm_head.weight' ? name : prefix + name,
    { shape: t.shape, data: t.data, dtype },
  ]);
  if (options.extras) {
    entries.push([
      'model.visual.patch_embed.proj.weight',
      { shape: [4, 3], data: new Float32Array(12) },
    ]);
    entries.push(['mtp.fc.weight', { shape: [2, 2], data: new Float32Array(4) }]);
  }
  writeSafetensorsFolder(folder, entries, options.shards ?? 1);
}

/** The folders every backend's correctness tests load: both layouts, each dtype, the shapes' corners. */
export const QWEN35_CASES: { name: string; spec: Qwen35Spec; options: Qwen35FolderOptions }[] = [
  {
    name: 'ForCausalLM, f32, grouped value heads, tied',
    spec: TINY_QWEN35,
    options: { layout: 'causal', dtype: 'F32' },
  },
  {
    name: 'ForConditionalGeneration (text_config nested, vision and MTP tensors skipped), bf16, 3 shards',
    spec: TINY_QWEN35,
    options: { layout: 'conditional', dtype: 'BF16', shards: 3, extras: true },
  },
  {
    name: 'odd layer count from full_attention_interval, untied, equal k/v heads, f16',
    spec: {
      ...TINY_QWEN35,
      layerTypes: [
        'linear_attention',
        'linear_attention',
        'full_attention',
        'linear_attention',
        'linear_attention',
      ],
      tied: false,
      linearValueHeads: 2,
      linearValueHeadDim: 8,
      convKernel: 3,
      partialRotary: 0.5,
    },
    options: { layout: 'causal', dtype: 'F16', explicitLayerTypes: false },
  },
];

/** A Qwen-style chat template that opens a thinking block, as Qwen3.5's does. */
const CHAT_TEMPLATE = [
  '{%- for message in messages %}',
  "{{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>\\n' }}",
  '{%- endfor %}',
  '{%- if add_generation_prompt %}',
  "{{- '<|im_start|>assistant\\n' }}",
  '{%- if enable_thinking is defined and enable_thinking is false %}',
  "{{- '<think>\\n\\n</think>\\n\\n' }}",
  '{%- else %}',
  "{{- '<think>\\n' }}",
  '{%- endif %}',
  '{%- endif %}',
].join('\n');

/**
 * A whole tiny Qwen3.5 folder as `local:` loads it: bf16 weights in the
 * Qwen3_5ForConditionalGeneration layout, a byte-level tokenizer, the template in
 * chat_template.jinja, stop token 262 in generation_config.json.
 */
export function writeTinyQwen35Chat(folder: string, seed: number): void {
  writeTinyQwen35(folder, TINY_QWEN35, tinyQwen35Tensors(TINY_QWEN35, seed), {
    layout: 'conditional',
    dtype: 'BF16',
  });
  writeTinyTokenizer(folder);
  writeFileSync(join(folder, 'chat_template.jinja'), CHAT_TEMPLATE);
  writeFileSync(join(folder, 'generation_config.json'), JSON.stringify({ eos_token_id: [262] }));
}

export interface ReferenceOptions {
  /** The delta rule as torch_chunk_gated_delta_rule (default, chunks of 64) or token by token. */
  deltaRule?: 'chunked' | 'recurrent';
  chunkSize?: number;
}

type Vec = number[];

const silu = (x: number): number => x / (1 + Math.exp(-x));
const sigmoid = (x: number): number => 1 / (1 + Math.exp(-x));
const softplus = (x: number): number => (x > 20 ? x : Math.log1p(Math.exp(x)));

export function qwen35ReferenceLogits(
  spec: Qwen35Spec,
  tensors: RawTensors,
  tokens: readonly number[],
  options: ReferenceOptions = {},
): number[][] {
  const t = (name: string): Float32Array => {
    const found = tensors.get(name);
    if (!found) throw new Error(`reference: no tensor ${name}`);
    return found.data;
  };
  const D = spec.hidden;
  const lin = (v: Vec, W: Float32Array, out: number): Vec =>
    Array.from({ length: out }, (_, r) => {
      let s = 0;
      for (let i = 0; i < v.length; i++) s += (W[r * v.length + i] ?? 0) * (v[i] ?? 0);
      return s;
    });
  // Qwen3_5RMSNorm: x rsqrt(mean x^2 + eps) (1 + w).
  const rms1p = (v: Vec, w: Float32Array): Vec => {
    const r = 1 / Math.sqrt(v.reduce((a, b) => a + b * b, 0) / v.length + spec.eps);
    return v.map((x, i) => x * r * (1 + (w[i] ?? 0)));
  };
  let x: Vec[] = tokens.map((tok) =>
    Array.from(t('embed_tokens.weight').subarray(tok * D, (tok + 1) * D)),
  );
  spec.layerTypes.forEach((type, l) => {
    const p = `layers.${l}.`;
    const h = x.map((v) => rms1p(v, t(`${p}input_layernorm.weight`)));
    const mixed =
      type === 'linear_attention'
        ? deltaNet(spec, t, p, h, lin, options)
        : attention(spec, t, p, h, lin);
    x = x.map((v, i) => v.map((xi, j) => xi + (mixed[i]?.[j] ?? 0)));
    x = x.map((v) => {
      const n = rms1p(v, t(`${p}post_attention_layernorm.weight`));
      const g = lin(n, t(`${p}mlp.gate_proj.weight`), spec.intermediate);
      const u = lin(n, t(`${p}mlp.up_proj.weight`), spec.intermediate);
      const f = lin(
        g.map((gi, i) => silu(gi) * (u[i] ?? 0)),
        t(`${p}mlp.down_proj.weight`),
        D,
      );
      return v.map((xi, i) => xi + (f[i] ?? 0));
    });
  });
  const head = spec.tied ? t('embed_tokens.weight') : t('lm_head.weight');
  return x.map((v) => lin(rms1p(v, t('norm.weight')), head, spec.vocab));
}

type Lin = (v: Vec, W: Float32Array, out: number) => Vec;
type Get = (name: string) => Float32Array;

function attention(spec: Qwen35Spec, t: Get, p: string, h: Vec[], lin: Lin): Vec[] {
  const { heads: H, kvHeads: KV, headDim: hd } = spec;
  const rd = Math.floor(hd * spec.partialRotary);
  const inv = Array.from({ length: rd / 2 }, (_, j) => 1 / spec.ropeTheta ** ((2 * j) / rd));
  const headRms = (v: Vec, w: Float32Array): Vec => {
    const r = 1 / Math.sqrt(v.reduce((a, b) => a + b * b, 0) / v.length + spec.eps);
    return v.map((x, i) => x * r * (1 + (w[i] ?? 0)));
  };
  const rope = (v: Vec, pos: number): Vec => {
    const out = [...v];
    for (let j = 0; j < rd / 2; j++) {
      const a = v[j] ?? 0;
      const b = v[j + rd / 2] ?? 0;
      const c = Math.cos(pos * (inv[j] ?? 0));
      const s = Math.sin(pos * (inv[j] ?? 0));
      out[j] = a * c - b * s;
      out[j + rd / 2] = b * c + a * s;
    }
    return out;
  };
  const q: Vec[][] = [];
  const gate: Vec[] = [];
  const k: Vec[][] = [];
  const v: Vec[][] = [];
  h.forEach((row, pos) => {
    const qg = lin(row, t(`${p}self_attn.q_proj.weight`), H * hd * 2);
    // view(..., heads, 2 hd) then chunk: each head's query, then its gate.
    q.push(
      Array.from({ length: H }, (_, i) =>
        rope(headRms(qg.slice(i * 2 * hd, i * 2 * hd + hd), t(`${p}self_attn.q_norm.weight`)), pos),
      ),
    );
    gate.push(
      Array.from({ length: H }, (_, i) => qg.slice(i * 2 * hd + hd, (i + 1) * 2 * hd)).flat(),
    );
    const kr = lin(row, t(`${p}self_attn.k_proj.weight`), KV * hd);
    k.push(
      Array.from({ length: KV }, (_, i) =>
        rope(headRms(kr.slice(i * hd, (i + 1) * hd), t(`${p}self_attn.k_norm.weight`)), pos),
      ),
    );
    const vr = lin(row, t(`${p}self_attn.v_proj.weight`), KV * hd);
    v.push(Array.from({ length: KV }, (_, i) => vr.slice(i * hd, (i + 1) * hd)));
  });
  return h.map((_, pos) => {
    const out: Vec = [];
    for (let head = 0; head < H; head++) {
      const kvHead = Math.floor(head / (H / KV));
      const scores = Array.from({ length: pos + 1 }, (_, s) => {
        let dot = 0;
        for (let i = 0; i < hd; i++) dot += (q[pos]?.[head]?.[i] ?? 0) * (k[s]?.[kvHead]?.[i] ?? 0);
        return dot / Math.sqrt(hd);
      });
      const max = Math.max(...scores);
      const e = scores.map((s) => Math.exp(s - max));
      const sum = e.reduce((a, b) => a + b, 0);
      for (let i = 0; i < hd; i++) {
        out.push(e.reduce((acc, w, s) => acc + (w / sum) * (v[s]?.[kvHead]?.[i] ?? 0), 0));
      }
    }
    const gated = out.map((o, i) => o * sigmoid(gate[pos]?.[i] ?? 0));
    return lin(gated, t(`${p}self_attn.o_proj.weight`), spec.hidden);
  });
}

function deltaNet(
  spec: Qwen35Spec,
  t: Get,
  p: string,
  h: Vec[],
  lin: Lin,
  options: ReferenceOptions,
): Vec[] {
  const nk = spec.linearKeyHeads;
  const nv = spec.linearValueHeads;
  const dk = spec.linearKeyHeadDim;
  const dv = spec.linearValueHeadDim;
  const keyDim = nk * dk;
  const valueDim = nv * dv;
  const convDim = 2 * keyDim + valueDim;
  const K = spec.convKernel;
  const T = h.length;
  const mixed = h.map((row) => lin(row, t(`${p}linear_attn.in_proj_qkv.weight`), convDim));
  const z = h.map((row) => lin(row, t(`${p}linear_attn.in_proj_z.weight`), valueDim));
  const b = h.map((row) => lin(row, t(`${p}linear_attn.in_proj_b.weight`), nv));
  const a = h.map((row) => lin(row, t(`${p}linear_attn.in_proj_a.weight`), nv));
  const w = t(`${p}linear_attn.conv1d.weight`);
  // causal_conv1d_fn: F.conv1d with K - 1 zeros of padding, the first T outputs, then SiLU.
  const conv = mixed.map((_, pos) =>
    Array.from({ length: convDim }, (_, c) => {
      let s = 0;
      for (let j = 0; j < K; j++) {
        const src = pos - (K - 1) + j;
        if (src >= 0) s += (w[c * K + j] ?? 0) * (mixed[src]?.[c] ?? 0);
      }
      return silu(s);
    }),
  );
  const aLog = t(`${p}linear_attn.A_log`);
  const dtBias = t(`${p}linear_attn.dt_bias`);
  const beta = b.map((row) => row.map(sigmoid));
  const g = a.map((row) =>
    row.map((ai, i) => -Math.exp(aLog[i] ?? 0) * softplus(ai + (dtBias[i] ?? 0))),
  );
  const l2 = (v: Vec): Vec => {
    const r = 1 / Math.sqrt(v.reduce((s, x) => s + x * x, 0) + 1e-6);
    return v.map((x) => x * r);
  };
  // Per value head (grouped: head i reads key head floor(i / (nv / nk))): [T][d] arrays.
  const perHead = Array.from({ length: nv }, (_, head) => {
    const kh = Math.floor(head / (nv / nk));
    const qs = conv.map((row) =>
      l2(row.slice(kh * dk, (kh + 1) * dk)).map((x) => x / Math.sqrt(dk)),
    );
    const ks = conv.map((row) => l2(row.slice(keyDim + kh * dk, keyDim + (kh + 1) * dk)));
    const vs = conv.map((row) => row.slice(2 * keyDim + head * dv, 2 * keyDim + (head + 1) * dv));
    const bs = beta.map((row) => row[head] ?? 0);
    const gs = g.map((row) => row[head] ?? 0);
    return options.deltaRule === 'recurrent'
      ? recurrentRule(qs, ks, vs, gs, bs)
      : chunkedRule(qs, ks, vs, gs, bs, options.chunkSize ?? 64);
  });
  const norm = t(`${p}linear_attn.norm.weight`);
  return Array.from({ length: T }, (_, pos) => {
    const core: Vec = [];
    for (let head = 0; head < nv; head++) {
      const o = perHead[head]?.[pos] ?? [];
      const r = 1 / Math.sqrt(o.reduce((s, x) => s + x * x, 0) / dv + spec.eps);
      for (let i = 0; i < dv; i++) {
        core.push((o[i] ?? 0) * r * (norm[i] ?? 0) * silu(z[pos]?.[head * dv + i] ?? 0));
      }
    }
    return lin(core, t(`${p}linear_attn.out_proj.weight`), spec.hidden);
  });
}

/** torch_recurrent_gated_delta_rule for one head: S <- S e^g; S += k (beta (v - S^T k))^T; o = S^T q. */
function recurrentRule(q: Vec[], k: Vec[], v: Vec[], g: number[], beta: number[]): Vec[] {
  const dk = q[0]?.length ?? 0;
  const dv = v[0]?.length ?? 0;
  const S = Array.from({ length: dk }, () => new Array<number>(dv).fill(0));
  return q.map((qt, pos) => {
    const decay = Math.exp(g[pos] ?? 0);
    const kt = k[pos] ?? [];
    for (const row of S) for (let j = 0; j < dv; j++) row[j] = (row[j] ?? 0) * decay;
    const delta = Array.from({ length: dv }, (_, j) => {
      let mem = 0;
      for (let i = 0; i < dk; i++) mem += (S[i]?.[j] ?? 0) * (kt[i] ?? 0);
      return ((v[pos]?.[j] ?? 0) - mem) * (beta[pos] ?? 0);
    });
    S.forEach((row, i) => {
      for (let j = 0; j < dv; j++) row[j] = (row[j] ?? 0) + (kt[i] ?? 0) * (delta[j] ?? 0);
    });
    return Array.from({ length: dv }, (_, j) => {
      let o = 0;
      for (let i = 0; i < dk; i++) o += (S[i]?.[j] ?? 0) * (qt[i] ?? 0);
      return o;
    });
  });
}

/** torch_chunk_gated_delta_rule for one head: the UT transform per chunk, then a scan over chunks. */
function chunkedRule(q: Vec[], k: Vec[], v: Vec[], g: number[], beta: number[], C: number): Vec[] {
  const T = q.length;
  const dk = q[0]?.length ?? 0;
  const dv = v[0]?.length ?? 0;
  const padded = Math.ceil(T / C) * C;
  const at = <X>(arr: X[], i: number, fill: X): X => (i < T ? (arr[i] ?? fill) : fill);
  const zeros = (n: number): Vec => new Array<number>(n).fill(0);
  let S = Array.from({ length: dk }, () => zeros(dv));
  const out: Vec[] = [];
  for (let start = 0; start < padded; start += C) {
    const idx = Array.from({ length: C }, (_, i) => start + i);
    const qc = idx.map((i) => at(q, i, zeros(dk)));
    const kc = idx.map((i) => at(k, i, zeros(dk)));
    const bc = idx.map((i) => at(beta, i, 0));
    const vBeta = idx.map((i, r) => at(v, i, zeros(dv)).map((x) => x * (bc[r] ?? 0)));
    const kBeta = kc.map((row, r) => row.map((x) => x * (bc[r] ?? 0)));
    const cum: number[] = [];
    idx.forEach((i, r) => cum.push((r ? (cum[r - 1] ?? 0) : 0) + at(g, i, 0)));
    const decay = (r: number, s: number): number =>
      s > r ? 0 : Math.exp((cum[r] ?? 0) - (cum[s] ?? 0));
    const dot = (x: Vec, y: Vec): number => x.reduce((acc, xi, i) => acc + xi * (y[i] ?? 0), 0);
    // ut_system is strictly lower triangular below a unit diagonal: solve (I + L) X = B by rows.
    const L = kBeta.map((kb, r) => kc.map((ks, s) => (s < r ? dot(kb, ks) * decay(r, s) : 0)));
    const solve = (B: Vec[]): Vec[] => {
      const X: Vec[] = [];
      B.forEach((row, r) => {
        const x = [...row];
        for (let s = 0; s < r; s++) {
          const l = L[r]?.[s] ?? 0;
          const xs = X[s] ?? [];
          for (let j = 0; j < x.length; j++) x[j] = (x[j] ?? 0) - l * (xs[j] ?? 0);
        }
        X.push(x);
      });
      return X;
    };
    const newValues = solve(vBeta);
    const kCumDecay = solve(kBeta.map((row, r) => row.map((x) => x * Math.exp(cum[r] ?? 0))));
    const vNew = newValues.map((row, r) =>
      row.map(
        (x, j) => x - (kCumDecay[r] ?? []).reduce((acc, kv, i) => acc + kv * (S[i]?.[j] ?? 0), 0),
      ),
    );
    for (let r = 0; r < C; r++) {
      const qd = (qc[r] ?? []).map((x) => x * Math.exp(cum[r] ?? 0));
      const o = Array.from({ length: dv }, (_, j) => {
        let s = 0;
        for (let i = 0; i < dk; i++) s += (qd[i] ?? 0) * (S[i]?.[j] ?? 0);
        for (let c = 0; c <= r; c++)
          s += dot(qc[r] ?? [], kc[c] ?? []) * decay(r, c) * (vNew[c]?.[j] ?? 0);
        return s;
      });
      if (start + r < T) out.push(o);
    }
    const last = cum[C - 1] ?? 0;
    S = S.map((row, i) =>
      row.map((sij, j) => {
        let s = sij * Math.exp(last);
        for (let c = 0; c < C; c++)
          s += (kc[c]?.[i] ?? 0) * Math.exp(last - (cum[c] ?? 0)) * (vNew[c]?.[j] ?? 0);
        return s;
      }),
    );
  }
  return out;
}
