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

/** Qwen3.5's layer kinds (`layer_types`): Gated DeltaNet or gated full attention. */
export type LayerType = 'linear_attention' | 'full_attention';

/**
 * What a Qwen3.5 (hybrid) decoder adds to the Llama shape: which layers are Gated DeltaNet, their
 * head shapes, the attention layers' output gate and partial rotary.
 */
export interface HybridConfig {
  layerTypes: readonly LayerType[];
  linearKeyHeads: number;
  linearValueHeads: number;
  linearKeyHeadDim: number;
  linearValueHeadDim: number;
  /** Width of the causal depthwise conv1d over q, k and v (`linear_conv_kernel_dim`). */
  convKernel: number;
  /** Leading dimensions of each attention head that rotate (head_dim x partial_rotary_factor). */
  rotaryDim: number;
}

export interface DecoderConfig {
  /** 'llama2c' | 'llama' | 'qwen2' | 'qwen3' | 'qwen3_5': what it was loaded as (for messages). */
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
  /**
   * Qwen3.5: Gated DeltaNet layers beside full-attention ones whose q_proj also writes a sigmoid
   * output gate (per head: headDim query rows, then headDim gate rows). Absent for dense models.
   */
  hybrid?: HybridConfig;
}

/** The key and value widths of a Gated DeltaNet layer: q, k and v go through one conv1d. */
export function deltaNetDims(h: HybridConfig): {
  keyDim: number;
  valueDim: number;
  convDim: number;
} {
  const keyDim = h.linearKeyHeads * h.linearKeyHeadDim;
  const valueDim = h.linearValueHeads * h.linearValueHeadDim;
  return { keyDim, valueDim, convDim: 2 * keyDim + valueDim };
}

export function isLinearLayer(config: DecoderConfig, layer: number): boolean {
  return config.hybrid?.layerTypes[layer] === 'linear_attention';
}

export function paramCount(config: DecoderConfig): number {
  const { dim, hiddenDim, nLayers, nHeads, nKvHeads, headDim, vocabSize, hybrid } = config;
  const gate = hybrid ? 2 : 1;
  const attn = dim * nHeads * headDim * (1 + gate) + dim * nKvHeads * headDim * 2;
  const mlp = 3 * dim * hiddenDim;
  const embed = vocabSize * dim * (config.tiedEmbeddings ? 1 : 2);
  let mixers = nLayers * attn;
  if (hybrid) {
    const { valueDim, convDim } = deltaNetDims(hybrid);
    const nv = hybrid.linearValueHeads;
    const linear =
      dim * (convDim + valueDim + 2 * nv) +
      convDim * hybrid.convKernel +
      2 * nv +
      hybrid.linearValueHeadDim +
      valueDim * dim;
    const linearLayers = hybrid.layerTypes.filter((t) => t === 'linear_attention').length;
    mixers = (nLayers - linearLayers) * attn + linearLayers * linear;
  }
  return mixers + nLayers * (mlp + 2 * dim) + embed + dim;
}
