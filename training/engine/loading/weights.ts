// Decoder weights as plain float32 arrays, row-major, in the orientation y = W x (W is [out, in]),
// which is both llama2.c's and Hugging Face's (nn.Linear) layout.
import type { DecoderConfig } from './model-config.ts';

export interface LayerWeights {
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

/** [out, in] of each linear of a layer. */
export function linearShape(config: DecoderConfig, name: LinearName): [number, number] {
  const { dim, hiddenDim, nHeads, nKvHeads, headDim } = config;
  switch (name) {
    case 'wq':
      return [nHeads * headDim, dim];
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
