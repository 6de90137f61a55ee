// The shape of a Llama-family decoder, whatever file it came from. Every loader produces one of
// these; every forward pass (plain JS, jax-js) reads only this and `DecoderWeights`.

/** How rotary frequencies are stretched for long contexts (Hugging Face `rope_scaling`). */
export type RopeScaling =
  | { kind: 'none' }
  | { kind: 'linear'; factor: number }
  | {
      kind: 'llama3';
      factor: number;
      lowFreqFactor: number;
      highFreqFactor: number;
      originalMaxPositions: number;
    }
  | {
      kind: 'yarn';
      factor: number;
      originalMaxPositions: number;
      betaFast: number;
      betaSlow: number;
      /** Multiplies cos/sin; defaults to 0.1 ln(factor) + 1. */
      attentionFactor: number;
    };

export interface DecoderConfig {
  /** 'llama2c' | 'llama' | 'qwen2' | 'qwen3': what it was loaded as (for messages only). */
  family: string;
  dim: number;
  hiddenDim: number;
  nLayers: number;
  nHeads: number;
  nKvHeads: number;
  headDim: number;
  vocabSize: number;
  /** Longest sequence the KV cache holds. */
  maxSeqLen: number;
  normEps: number;
  ropeTheta: number;
  ropeScaling: RopeScaling;
  /**
   * 'interleaved': pairs (2i, 2i+1), as llama2.c and Meta's checkpoints;
   * 'half': pairs (i, i + headDim/2), as Hugging Face's rotate_half.
   */
  ropeStyle: 'interleaved' | 'half';
  tiedEmbeddings: boolean;
  /** Qwen2: biases on the q, k and v projections. */
  attentionBias: boolean;
  /** Qwen3: RMSNorm over each head of q and k before the rotation. */
  qkNorm: boolean;
}

export function paramCount(config: DecoderConfig): number {
  const { dim, hiddenDim, nLayers, nHeads, nKvHeads, headDim, vocabSize } = config;
  const attn = dim * nHeads * headDim * 2 + dim * nKvHeads * headDim * 2;
  const mlp = 3 * dim * hiddenDim;
  const embed = vocabSize * dim * (config.tiedEmbeddings ? 1 : 2);
  return nLayers * (attn + mlp + 2 * dim) + embed + dim;
}
