// What the trainer's two test files share: a tiny Qwen3-style config with every feature on (q/k
// norms, biases, YaRN rotary), two sequences with per-position weights, the model made from them.
import type { numpy as np } from '@jax-js/jax';
import { tinyRandomModel } from '../loading/hf-reference.test-support.ts';
import type { DecoderConfig } from '../loading/model-config.ts';

export const config: DecoderConfig = {
  family: 'qwen3',
  dim: 16,
  hiddenDim: 24,
  nLayers: 2,
  nHeads: 4,
  nKvHeads: 2,
  headDim: 4,
  vocabSize: 20,
  maxSeqLen: 32,
  normEps: 1e-6,
  ropeTheta: 10000,
  ropeScaling: {
    kind: 'yarn',
    factor: 2,
    originalMaxPositions: 8,
    betaFast: 32,
    betaSlow: 1,
    attentionFactor: 1.07,
  },
  ropeStyle: 'half',
  tiedEmbeddings: false,
  attentionBias: true,
  qkNorm: true,
};
export const sequences = [
  [3, 7, 1, 19, 4, 4, 12],
  [5, 2, 9, 11],
];
// Random per-position weights: the loss is sum_t w[t] * logp[t].
export const weights = [
  [0.3, -1.2, 0.7, 0.1, -0.4, 0.9],
  [-0.8, 0.5, 1.1],
];

export const model = tinyRandomModel(config, 77);

export async function leafData(a: np.Array): Promise<Float64Array> {
  return Float64Array.from((await a.ref.data()) as ArrayLike<number>);
}
