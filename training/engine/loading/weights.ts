// Decoder weights, row-major, in the orientation y = W x (W is [out, in]), which is both llama2.c's
// and Hugging Face's (nn.Linear) layout. Linears and embeddings are float32, or bf16 as stored in a
// bf16 checkpoint (half the memory); norms and the small DeltaNet vectors are always float32.
import { EngineError } from '../errors.ts';
import { Bf16Array, type WeightArray } from './bf16.ts';
import { deltaNetDims, type DecoderConfig } from './model-config.ts';

/** A Qwen3.5 Gated DeltaNet layer's token mixer (Hugging Face's `linear_attn`). */
export interface DeltaNetWeights {
  /** in_proj_qkv: [2 keyDim + valueDim, dim], rows q, then k, then v. */
  inQkv: WeightArray;
  /** in_proj_z: [valueDim, dim], the output gate of the gated norm. */
  inZ: WeightArray;
  /** in_proj_b: [valueHeads, dim] -> beta = sigmoid(b). */
  inB: WeightArray;
  /** in_proj_a: [valueHeads, dim] -> decay g = -exp(A_log) softplus(a + dt_bias). */
  inA: WeightArray;
  /** conv1d.weight: [convDim, kernel], depthwise, no bias. */
  conv: Float32Array;
  aLog: Float32Array;
  dtBias: Float32Array;
  /** The gated RMSNorm's weight over one value head (plain weight, not 1 + w). */
  norm: Float32Array;
  /** out_proj: [dim, valueDim] */
  out: WeightArray;
}

export interface LayerWeights {
  /**
   * RMSNorm weights multiply the normalised vector. Qwen3.5 stores them zero-centred (its norm
   * multiplies by 1 + w); the loader adds the 1 and the exporter takes it off again.
   */
  attnNorm: Float32Array;
  wq: WeightArray;
  wk: WeightArray;
  wv: WeightArray;
  wo: WeightArray;
  bq: Float32Array | null;
  bk: Float32Array | null;
  bv: Float32Array | null;
  qNorm: Float32Array | null;
  kNorm: Float32Array | null;
  ffnNorm: Float32Array;
  /** gate_proj */
  w1: WeightArray;
  /** down_proj */
  w2: WeightArray;
  /** up_proj */
  w3: WeightArray;
  /**
   * Qwen3.5 linear-attention layers: the Gated DeltaNet mixer, and wq, wk, wv, wo are empty
   * (length 0). In its full-attention layers wq holds the output gate too ([2 qDim, dim]).
   */
  deltaNet?: DeltaNetWeights;
}

/** A linear-attention layer's attention fields: empty linears, no biases or q/k norms. */
export function noAttention(): Pick<
  LayerWeights,
  'wq' | 'wk' | 'wv' | 'wo' | 'bq' | 'bk' | 'bv' | 'qNorm' | 'kNorm'
> {
  const empty = new Float32Array(0);
  return {
    wq: empty,
    wk: empty,
    wv: empty,
    wo: empty,
    bq: null,
    bk: null,
    bv: null,
    qNorm: null,
    kNorm: null,
  };
}

export interface DecoderWeights {
  tokenEmbedding: WeightArray;
  layers: LayerWeights[];
  finalNorm: Float32Array;
  /** The same array as tokenEmbedding when the embeddings are tied. */
  lmHead: WeightArray;
}

export interface DecoderModel {
  config: DecoderConfig;
  weights: DecoderWeights;
  /** The checkpoint's precision, where it was half (a GPU decoder keeps the weights f16 then). */
  storedAs?: 'bf16' | 'f16';
}

/** A full-attention or MLP linear (`layer.wq` ...). */
export type AttentionLinear = 'wq' | 'wk' | 'wv' | 'wo' | 'w1' | 'w2' | 'w3';
/** A Gated DeltaNet projection (`layer.deltaNet.inQkv` ...). */
export type DeltaNetLinear = 'inQkv' | 'inZ' | 'inB' | 'inA' | 'out';
export type LinearName = AttentionLinear | DeltaNetLinear;
export const ATTENTION_LINEARS: readonly AttentionLinear[] = [
  'wq',
  'wk',
  'wv',
  'wo',
  'w1',
  'w2',
  'w3',
];
export const DELTA_NET_LINEARS: readonly DeltaNetLinear[] = ['inQkv', 'inZ', 'inB', 'inA', 'out'];
export const LINEAR_NAMES: readonly LinearName[] = [...ATTENTION_LINEARS, ...DELTA_NET_LINEARS];
const MLP_LINEARS: readonly LinearName[] = ['w1', 'w2', 'w3'];

export function isDeltaNetLinear(name: LinearName): name is DeltaNetLinear {
  return (DELTA_NET_LINEARS as readonly string[]).includes(name);
}

/** The linears layer `l` has: a DeltaNet layer's projections or attention's, then the MLP's. */
export function layerLinears(config: DecoderConfig, l: number): readonly LinearName[] {
  if (config.hybrid?.layerTypes[l] === 'linear_attention') {
    return [...DELTA_NET_LINEARS, ...MLP_LINEARS];
  }
  return ATTENTION_LINEARS;
}

/** The weight of linear `name` in a layer (a DeltaNet projection from its mixer). */
export function linearOf(layer: LayerWeights, name: LinearName): WeightArray {
  if (!isDeltaNetLinear(name)) return layer[name];
  if (!layer.deltaNet) throw new EngineError(`a full-attention layer has no '${name}'`);
  return layer.deltaNet[name];
}

/** A copy of `layer` with linear `name` replaced. */
export function withLinear(layer: LayerWeights, name: LinearName, w: WeightArray): LayerWeights {
  if (!isDeltaNetLinear(name)) return { ...layer, [name]: w };
  if (!layer.deltaNet) throw new EngineError(`a full-attention layer has no '${name}'`);
  return { ...layer, deltaNet: { ...layer.deltaNet, [name]: w } };
}

/** [out, in] of each linear (a full-attention layer's, or a DeltaNet layer's projections). */
export function linearShape(config: DecoderConfig, name: LinearName): [number, number] {
  const { dim, hiddenDim, nHeads, nKvHeads, headDim } = config;
  switch (name) {
    case 'wq':
      return [nHeads * headDim * (config.hybrid ? 2 : 1), dim];
    case 'wk':
    case 'wv':
      return [nKvHeads * headDim, dim];
    case 'wo':
      return [dim, nHeads * headDim];
    case 'w1':
    case 'w3':
      return [hiddenDim, dim];
    case 'w2':
      return [dim, hiddenDim];
  }
  const h = config.hybrid;
  if (!h) throw new EngineError(`'${name}' is a Gated DeltaNet projection; this model has none`);
  const { valueDim, convDim } = deltaNetDims(h);
  switch (name) {
    case 'inQkv':
      return [convDim, dim];
    case 'inZ':
      return [valueDim, dim];
    case 'inB':
    case 'inA':
      return [h.linearValueHeads, dim];
    case 'out':
      return [dim, valueDim];
  }
}

/** Bytes the weights take, by storage (a tied table counted once). */
export function weightBytes(w: DecoderWeights): { total: number; bf16: number; f32: number } {
  const seen = new Set<WeightArray>();
  let bf16 = 0;
  let f32 = 0;
  const count = (a: WeightArray | null | undefined): void => {
    if (!a || seen.has(a)) return;
    seen.add(a);
    if (a instanceof Bf16Array) bf16 += a.bits.byteLength;
    else f32 += a.byteLength;
  };
  count(w.tokenEmbedding);
  count(w.lmHead);
  count(w.finalNorm);
  for (const l of w.layers) {
    for (const a of [l.attnNorm, l.wq, l.wk, l.wv, l.wo, l.bq, l.bk, l.bv, l.qNorm, l.kNorm])
      count(a);
    for (const a of [l.ffnNorm, l.w1, l.w2, l.w3]) count(a);
    const d = l.deltaNet;
    if (d)
      for (const a of [d.inQkv, d.inZ, d.inB, d.inA, d.conv, d.aLog, d.dtBias, d.norm, d.out])
        count(a);
  }
  return { total: bf16 + f32, bf16, f32 };
}
