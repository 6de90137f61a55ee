// Hugging Face safetensors (one file or shards with model.safetensors.index.json) -> DecoderWeights,
// every tensor's shape checked against the config. Qwen3.5 folders keep the text model under
// `model.language_model.` (the multimodal layout) or `model.`; its vision tower and MTP layers are
// never read.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MissingModelFileError, ShapeMismatchError, UnsupportedModelError } from '../errors.ts';
import { deltaNetDims, isLinearLayer, type DecoderConfig } from './model-config.ts';
import { HEAP_STORE, type WeightArray, type WeightStore } from './bf16.ts';
import {
  readSafetensorsHeader,
  readTensor,
  readTensorInto,
  type SafetensorsFile,
  type TensorInfo,
} from './safetensors.ts';
import {
  noAttention,
  type DecoderWeights,
  type DeltaNetWeights,
  type LayerWeights,
} from './weights.ts';

/** Where the text model's tensors sit, multimodal layouts first. */
const TEXT_PREFIXES = ['model.language_model.', 'language_model.model.', 'model.'];

export interface LoadedWeights {
  weights: DecoderWeights;
  /** Stored dtypes seen, e.g. ['BF16']. */
  dtypes: string[];
}

function openShards(folder: string): Map<string, SafetensorsFile> {
  const index = join(folder, 'model.safetensors.index.json');
  let files: string[];
  if (existsSync(index)) {
    const map = (JSON.parse(readFileSync(index, 'utf8')) as { weight_map: Record<string, string> })
      .weight_map;
    files = [...new Set(Object.values(map))];
  } else {
    files = readdirSync(folder).filter((f) => f.endsWith('.safetensors'));
  }
  if (files.length === 0) {
    throw new MissingModelFileError(
      folder,
      'model.safetensors',
      'only safetensors weights are read',
    );
  }
  const byTensor = new Map<string, SafetensorsFile>();
  for (const file of files) {
    const path = join(folder, file);
    if (!existsSync(path))
      throw new MissingModelFileError(folder, file, 'the shard index names it');
    const header = readSafetensorsHeader(path);
    for (const name of header.tensors.keys()) byTensor.set(name, header);
  }
  return byTensor;
}

/**
 * Linears and embeddings go into `store` (bf16 ones stay bf16; f16 ones are widened to float32);
 * norms and the other small vectors are float32 arrays.
 */
export function loadHfWeights(
  folder: string,
  c: DecoderConfig,
  store: WeightStore = HEAP_STORE,
): LoadedWeights {
  const shards = openShards(folder);
  const dtypes = new Set<string>();
  const has = (name: string): boolean => shards.has(name);
  const find = (name: string, shape: number[]): { file: SafetensorsFile; info: TensorInfo } => {
    const file = shards.get(name);
    if (!file)
      throw new MissingModelFileError(
        folder,
        `tensor '${name}'`,
        'is it a model of this architecture?',
      );
    const info = file.tensors.get(name);
    if (!info) throw new MissingModelFileError(folder, `tensor '${name}'`);
    if (info.shape.length !== shape.length || info.shape.some((d, i) => d !== shape[i])) {
      throw new ShapeMismatchError(name, shape, info.shape);
    }
    dtypes.add(info.dtype);
    return { file, info };
  };
  const tensor = (name: string, shape: number[]): Float32Array => {
    const { file } = find(name, shape);
    return readTensor(file, name);
  };
  const weight = (name: string, shape: number[]): WeightArray => {
    const { file, info } = find(name, shape);
    const count = shape.reduce((a, b) => a * b, 1);
    if (info.dtype === 'BF16') {
      const w = store.bf16(count);
      readTensorInto(file, name, w.bits);
      return w;
    }
    const w = store.f32(count);
    readTensorInto(file, name, w);
    return w;
  };
  const root = c.hybrid ? textPrefix(folder, shards) : 'model.';
  // Qwen3.5's RMSNorms multiply by 1 + w; the forward passes multiply by the stored weight.
  const norm = (name: string, size: number): Float32Array => {
    const w = tensor(name, [size]);
    if (c.hybrid) for (let i = 0; i < w.length; i++) w[i] = 1 + (w[i] ?? 0);
    return w;
  };
  const qDim = c.nHeads * c.headDim;
  const kvDim = c.nKvHeads * c.headDim;
  const layers: LayerWeights[] = [];
  for (let l = 0; l < c.nLayers; l++) {
    const p = `${root}layers.${l}.`;
    const bias = (name: string, size: number): Float32Array | null =>
      c.attentionBias ? tensor(`${p}self_attn.${name}.bias`, [size]) : null;
    const mlp = {
      attnNorm: norm(`${p}input_layernorm.weight`, c.dim),
      ffnNorm: norm(`${p}post_attention_layernorm.weight`, c.dim),
      w1: weight(`${p}mlp.gate_proj.weight`, [c.hiddenDim, c.dim]),
      w2: weight(`${p}mlp.down_proj.weight`, [c.dim, c.hiddenDim]),
      w3: weight(`${p}mlp.up_proj.weight`, [c.hiddenDim, c.dim]),
    };
    if (isLinearLayer(c, l)) {
      layers.push({
        ...mlp,
        ...noAttention(),
        deltaNet: deltaNetWeights(c, `${p}linear_attn.`, tensor, weight),
      });
      continue;
    }
    layers.push({
      ...mlp,
      wq: weight(`${p}self_attn.q_proj.weight`, [qDim * (c.hybrid ? 2 : 1), c.dim]),
      wk: weight(`${p}self_attn.k_proj.weight`, [kvDim, c.dim]),
      wv: weight(`${p}self_attn.v_proj.weight`, [kvDim, c.dim]),
      wo: weight(`${p}self_attn.o_proj.weight`, [c.dim, qDim]),
      bq: bias('q_proj', qDim),
      bk: bias('k_proj', kvDim),
      bv: bias('v_proj', kvDim),
      qNorm: c.qkNorm ? norm(`${p}self_attn.q_norm.weight`, c.headDim) : null,
      kNorm: c.qkNorm ? norm(`${p}self_attn.k_norm.weight`, c.headDim) : null,
    });
  }
  const tokenEmbedding = weight(`${root}embed_tokens.weight`, [c.vocabSize, c.dim]);
  const head = ['lm_head.weight', 'language_model.lm_head.weight'].find(has) ?? 'lm_head.weight';
  // Some exports keep lm_head even when tied; a tied model without it reuses the embedding.
  const lmHead =
    c.tiedEmbeddings && !has(head) ? tokenEmbedding : weight(head, [c.vocabSize, c.dim]);
  return {
    weights: { tokenEmbedding, layers, finalNorm: norm(`${root}norm.weight`, c.dim), lmHead },
    dtypes: [...dtypes],
  };
}

function textPrefix(folder: string, shards: Map<string, SafetensorsFile>): string {
  const found = TEXT_PREFIXES.find((p) => shards.has(`${p}embed_tokens.weight`));
  if (found) return found;
  const names = [...shards.keys()];
  if (names.some((n) => /(^|\.)visual\./.test(n))) {
    throw new UnsupportedModelError(
      `the model in '${folder}' holds only a vision tower (no embed_tokens of a text model); the app reads text only`,
    );
  }
  throw new MissingModelFileError(
    folder,
    "tensor 'model.language_model.embed_tokens.weight' (or 'model.embed_tokens.weight')",
    'is it a Qwen3.5 text model?',
  );
}

function deltaNetWeights(
  c: DecoderConfig,
  p: string,
  tensor: (name: string, shape: number[]) => Float32Array,
  weight: (name: string, shape: number[]) => WeightArray,
): DeltaNetWeights {
  const h = c.hybrid;
  if (!h) throw new UnsupportedModelError('a linear-attention layer needs a Qwen3.5 config');
  const { keyDim, valueDim, convDim } = deltaNetDims(h);
  const nv = h.linearValueHeads;
  return {
    inQkv: weight(`${p}in_proj_qkv.weight`, [2 * keyDim + valueDim, c.dim]),
    inZ: weight(`${p}in_proj_z.weight`, [valueDim, c.dim]),
    inB: weight(`${p}in_proj_b.weight`, [nv, c.dim]),
    inA: weight(`${p}in_proj_a.weight`, [nv, c.dim]),
    conv: tensor(`${p}conv1d.weight`, [convDim, 1, h.convKernel]),
    aLog: tensor(`${p}A_log`, [nv]),
    dtBias: tensor(`${p}dt_bias`, [nv]),
    norm: tensor(`${p}norm.weight`, [h.linearValueHeadDim]),
    out: weight(`${p}out_proj.weight`, [c.dim, valueDim]),
  };
}
