// Writes a DecoderModel as a Hugging Face folder (config.json + safetensors, optionally sharded
// with an index): the merged-LoRA export, and how tests build models to load. Llama, Qwen2/3 and
// Qwen3.5's text model (as Qwen3_5ForCausalLM).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EngineError } from '../errors.ts';
import {
  deltaNetDims,
  type DecoderConfig,
  type HybridConfig,
  type RopeScaling,
} from './model-config.ts';
import { serializeSafetensors, type TensorToWrite } from './safetensors.ts';
import {
  linearShape,
  type DecoderModel,
  type DeltaNetLinear,
  type DeltaNetWeights,
} from './weights.ts';
import { float32Of } from './bf16.ts';

const ARCHITECTURES: Record<string, string> = {
  llama: 'LlamaForCausalLM',
  llama2c: 'LlamaForCausalLM',
  qwen2: 'Qwen2ForCausalLM',
  qwen3: 'Qwen3ForCausalLM',
  qwen3_5: 'Qwen3_5ForCausalLM',
};

export function hfConfigOf(c: DecoderConfig): Record<string, unknown> {
  if (c.hybrid) return qwen35ConfigOf(c, c.hybrid);
  const architecture = ARCHITECTURES[c.family];
  if (!architecture) throw new EngineError(`no Hugging Face architecture for '${c.family}'`);
  if (c.ropeStyle !== 'half' && c.family !== 'llama2c') {
    throw new EngineError('Hugging Face models rotate halves; this model rotates pairs');
  }
  return {
    architectures: [architecture],
    model_type: architecture === 'LlamaForCausalLM' ? 'llama' : c.family,
    hidden_size: c.dim,
    intermediate_size: c.hiddenDim,
    num_hidden_layers: c.nLayers,
    num_attention_heads: c.nHeads,
    num_key_value_heads: c.nKvHeads,
    head_dim: c.headDim,
    vocab_size: c.vocabSize,
    max_position_embeddings: c.maxSeqLen,
    rms_norm_eps: c.normEps,
    rope_theta: c.ropeTheta,
    rope_scaling: ropeScalingToHf(c.ropeScaling),
    tie_word_embeddings: c.tiedEmbeddings,
    attention_bias: c.attentionBias,
    hidden_act: 'silu',
    torch_dtype: 'float32',
  };
}

/** Qwen3_5ForCausalLM's config (Qwen3_5TextConfig): the text model alone. */
function qwen35ConfigOf(c: DecoderConfig, h: HybridConfig): Record<string, unknown> {
  if (c.ropeScaling.kind !== 'none') {
    throw new EngineError('the Qwen3.5 exporter writes the default rotary only');
  }
  return {
    architectures: ['Qwen3_5ForCausalLM'],
    model_type: 'qwen3_5_text',
    hidden_size: c.dim,
    intermediate_size: c.hiddenDim,
    num_hidden_layers: c.nLayers,
    num_attention_heads: c.nHeads,
    num_key_value_heads: c.nKvHeads,
    head_dim: c.headDim,
    layer_types: h.layerTypes,
    linear_num_key_heads: h.linearKeyHeads,
    linear_num_value_heads: h.linearValueHeads,
    linear_key_head_dim: h.linearKeyHeadDim,
    linear_value_head_dim: h.linearValueHeadDim,
    linear_conv_kernel_dim: h.convKernel,
    vocab_size: c.vocabSize,
    max_position_embeddings: c.maxSeqLen,
    rms_norm_eps: c.normEps,
    rope_parameters: {
      rope_type: 'default',
      rope_theta: c.ropeTheta,
      partial_rotary_factor: h.rotaryDim / c.headDim,
    },
    tie_word_embeddings: c.tiedEmbeddings,
    attention_bias: c.attentionBias,
    hidden_act: 'silu',
    torch_dtype: 'float32',
  };
}

function ropeScalingToHf(s: RopeScaling): Record<string, unknown> | null {
  switch (s.kind) {
    case 'none':
      return null;
    case 'linear':
      return { rope_type: 'linear', factor: s.factor };
    case 'llama3':
      return {
        rope_type: 'llama3',
        factor: s.factor,
        low_freq_factor: s.lowFreqFactor,
        high_freq_factor: s.highFreqFactor,
        original_max_position_embeddings: s.originalMaxPositions,
      };
    case 'yarn':
      return {
        rope_type: 'yarn',
        factor: s.factor,
        original_max_position_embeddings: s.originalMaxPositions,
        beta_fast: s.betaFast,
        beta_slow: s.betaSlow,
        attention_factor: s.attentionFactor,
      };
  }
}

/** Tensors under their Hugging Face names. */
export function hfTensors(model: DecoderModel): Record<string, TensorToWrite> {
  const { config: c, weights: w } = model;
  const qDim = c.nHeads * c.headDim;
  const kvDim = c.nKvHeads * c.headDim;
  // Qwen3.5 stores its RMSNorm weights zero-centred (it multiplies by 1 + w); the loader added the 1.
  const norm = (a: Float32Array): Float32Array => (c.hybrid ? a.map((x) => x - 1) : a);
  const out: Record<string, TensorToWrite> = {
    'model.embed_tokens.weight': { shape: [c.vocabSize, c.dim], data: float32Of(w.tokenEmbedding) },
  };
  w.layers.forEach((l, i) => {
    const p = `model.layers.${i}.`;
    out[`${p}input_layernorm.weight`] = { shape: [c.dim], data: norm(l.attnNorm) };
    if (l.deltaNet && c.hybrid) {
      Object.assign(out, deltaNetTensors(c, c.hybrid, l.deltaNet, `${p}linear_attn.`));
    } else {
      out[`${p}self_attn.q_proj.weight`] = {
        shape: linearShape(c, 'wq'),
        data: float32Of(l.wq),
      };
      out[`${p}self_attn.k_proj.weight`] = { shape: [kvDim, c.dim], data: float32Of(l.wk) };
      out[`${p}self_attn.v_proj.weight`] = { shape: [kvDim, c.dim], data: float32Of(l.wv) };
      out[`${p}self_attn.o_proj.weight`] = { shape: [c.dim, qDim], data: float32Of(l.wo) };
    }
    if (l.bq) out[`${p}self_attn.q_proj.bias`] = { shape: [qDim], data: l.bq };
    if (l.bk) out[`${p}self_attn.k_proj.bias`] = { shape: [kvDim], data: l.bk };
    if (l.bv) out[`${p}self_attn.v_proj.bias`] = { shape: [kvDim], data: l.bv };
    if (l.qNorm) out[`${p}self_attn.q_norm.weight`] = { shape: [c.headDim], data: norm(l.qNorm) };
    if (l.kNorm) out[`${p}self_attn.k_norm.weight`] = { shape: [c.headDim], data: norm(l.kNorm) };
    out[`${p}post_attention_layernorm.weight`] = { shape: [c.dim], data: norm(l.ffnNorm) };
    out[`${p}mlp.gate_proj.weight`] = { shape: [c.hiddenDim, c.dim], data: float32Of(l.w1) };
    out[`${p}mlp.down_proj.weight`] = { shape: [c.dim, c.hiddenDim], data: float32Of(l.w2) };
    out[`${p}mlp.up_proj.weight`] = { shape: [c.hiddenDim, c.dim], data: float32Of(l.w3) };
  });
  out['model.norm.weight'] = { shape: [c.dim], data: norm(w.finalNorm) };
  if (!c.tiedEmbeddings)
    out['lm_head.weight'] = { shape: [c.vocabSize, c.dim], data: float32Of(w.lmHead) };
  return out;
}

/** A Gated DeltaNet mixer's tensors under `linear_attn.` (its norm weight is plain, not 1 + w). */
function deltaNetTensors(
  c: DecoderConfig,
  h: HybridConfig,
  d: DeltaNetWeights,
  p: string,
): Record<string, TensorToWrite> {
  const nv = h.linearValueHeads;
  const linear = (name: DeltaNetLinear): TensorToWrite => ({
    shape: linearShape(c, name),
    data: float32Of(d[name]),
  });
  return {
    [`${p}in_proj_qkv.weight`]: linear('inQkv'),
    [`${p}in_proj_z.weight`]: linear('inZ'),
    [`${p}in_proj_b.weight`]: linear('inB'),
    [`${p}in_proj_a.weight`]: linear('inA'),
    [`${p}conv1d.weight`]: { shape: [deltaNetDims(h).convDim, 1, h.convKernel], data: d.conv },
    [`${p}A_log`]: { shape: [nv], data: d.aLog },
    [`${p}dt_bias`]: { shape: [nv], data: d.dtBias },
    [`${p}norm.weight`]: { shape: [h.linearValueHeadDim], data: d.norm },
    [`${p}out_proj.weight`]: linear('out'),
  };
}

export interface HfExportOptions {
  dtype?: 'F32' | 'F16' | 'BF16';
  /** Split into this many files with model.safetensors.index.json (default 1). */
  shards?: number;
}

export function writeHfModel(
  folder: string,
  model: DecoderModel,
  options: HfExportOptions = {},
): void {
  mkdirSync(folder, { recursive: true });
  const config = hfConfigOf(model.config);
  const dtype = options.dtype ?? 'F32';
  config.torch_dtype = { F32: 'float32', F16: 'float16', BF16: 'bfloat16' }[dtype];
  writeFileSync(join(folder, 'config.json'), JSON.stringify(config, null, 2));
  const entries = Object.entries(hfTensors(model)).map(([name, t]): [string, TensorToWrite] => [
    name,
    { ...t, dtype },
  ]);
  writeSafetensorsFolder(folder, entries, options.shards ?? 1);
}

/** Tensors as model.safetensors, or `shards` files with model.safetensors.index.json. */
export function writeSafetensorsFolder(
  folder: string,
  entries: [string, TensorToWrite][],
  shardCount: number,
): void {
  const shards = Math.max(1, shardCount);
  if (shards === 1) {
    writeFileSync(
      join(folder, 'model.safetensors'),
      serializeSafetensors(Object.fromEntries(entries)),
    );
    return;
  }
  const weightMap: Record<string, string> = {};
  const per = Math.ceil(entries.length / shards);
  for (let s = 0; s < shards; s++) {
    const file = `model-${String(s + 1).padStart(5, '0')}-of-${String(shards).padStart(5, '0')}.safetensors`;
    const part = entries.slice(s * per, (s + 1) * per);
    for (const [name] of part) weightMap[name] = file;
    writeFileSync(join(folder, file), serializeSafetensors(Object.fromEntries(part)));
  }
  writeFileSync(
    join(folder, 'model.safetensors.index.json'),
    JSON.stringify({ metadata: {}, weight_map: weightMap }, null, 2),
  );
}
