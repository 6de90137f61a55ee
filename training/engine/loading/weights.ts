// Decoder weights as plain float32 arrays, row-major, in the orientation y = W x (W is [out, in]),
// which is both llama2.c's and Hugging Face's (nn.Linear) layout.
import type { DecoderConfig } from './model-config.ts';

/** A Qwen3.5 Gated DeltaNet layer's token mixer (Hugging Face's `linear_attn`). */
export interface DeltaNetWeights {
  /** in_proj_qkv: [2 keyDim + valueDim, dim], rows q, then k, then v. */
  inQkv: Float32Array;
  /** in_proj_z: [valueDim, dim], the output gate of the gated norm. */
  inZ: Float32Array;
  /** in_proj_b: [valueHeads, dim] -> beta = sigmoid(b). */
  inB: Float32Array;
  /** in_proj_a: [valueHeads, dim] -> decay g = -exp(A_log) softplus(a + dt_bias). */
  inA: Float32Array;
  /** conv1d.weight: [convDim, kernel], depthwise, no bias. */
  conv: Float32Array;
  aLog: Float32Array;
  dtBias: Float32Array;
  /** The gated RMSNorm's weight over one value head (plain weight, not 1 + w). */
  norm: Float32Array;
  /** out_proj: [dim, valueDim] */
  out: Float32Array;
}

export interface LayerWeights {
  /**
   * RMSNorm weights multiply the normalised vector. Qwen3.5 stores them zero-centred (its norm
   * multiplies by 1 + w); the loader adds the 1 and the exporter takes it off again.
   */
  attnNorm: Float32Array;
  wq: Float32Array;
  wk: Float32Array;
  wv: Float32Array;
  wo: Float32Array;
  bq: Float32Array | null;
  bk: Float32Array | null;
  bv: Float32Array | null;
  qNorm: Float32Array | null;
  kNorm: Float32Array | null;
  ffnNorm: Float32Array;
  /** gate_proj */
  w1: Float32Array;
  /** down_proj */
  w2: Float32Array;
  /** up_proj */
  w3: Float32Array;
  /**
   * Qwen3.5 linear-attention layers: the Gated DeltaNet mixer, and wq, wk, wv, wo are empty
   * (length 0). In its full-attention layers wq holds the output gate too ([2 qDim, dim]).
   */
  deltaNet?: DeltaNetWeights;
}

export interface DecoderWeights {
  tokenEmbedding: Float32Array;
  layers: LayerWeights[];
  finalNorm: Float32Array;
  /** The same array as tokenEmbedding when the embeddings are tied. */
  lmHead: Float32Array;
}

export interface DecoderModel {
  config: DecoderConfig;
  weights: DecoderWeights;
}

export type LinearName = 'wq' | 'wk' | 'wv' | 'wo' | 'w1' | 'w2' | 'w3';
export const LINEAR_NAMES: readonly LinearName[] = ['wq', 'wk', 'wv', 'wo', 'w1', 'w2', 'w3'];

/** [out, in] of each linear of a (full-attention) layer. */
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
}
