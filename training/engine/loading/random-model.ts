// Decoders with random weights, for tests and benchmarks: a seeded generator so a run is
// reproducible, weights scaled like an initialised network so activations stay finite.
import type { DecoderConfig } from './model-config.ts';
import type { DecoderModel, LayerWeights } from './weights.ts';
import { mulberry32 } from '../../../app/random/mulberry32.ts';

/** Seeded numbers in [0, 1) for test weights. */
export const seededUniform = mulberry32;

export function randomDecoderModel(config: DecoderConfig, seed = 1): DecoderModel {
  const next = seededUniform(seed);
  const uniform = (n: number, scale: number): Float32Array => {
    const a = new Float32Array(n);
    for (let i = 0; i < n; i++) a[i] = (next() * 2 - 1) * scale;
    return a;
  };
  const norm = (n: number): Float32Array => {
    const a = new Float32Array(n);
    for (let i = 0; i < n; i++) a[i] = 0.8 + 0.4 * next();
    return a;
  };
  const { dim, hiddenDim, nLayers, nHeads, nKvHeads, headDim, vocabSize } = config;
  const qDim = nHeads * headDim;
  const kvDim = nKvHeads * headDim;
  const inScale = (fanIn: number): number => Math.sqrt(3 / fanIn);
  const layers: LayerWeights[] = Array.from({ length: nLayers }, () => ({
    attnNorm: norm(dim),
    wq: uniform(qDim * dim, inScale(dim)),
    wk: uniform(kvDim * dim, inScale(dim)),
    wv: uniform(kvDim * dim, inScale(dim)),
    wo: uniform(dim * qDim, inScale(qDim)),
    bq: config.attentionBias ? uniform(qDim, 0.1) : null,
    bk: config.attentionBias ? uniform(kvDim, 0.1) : null,
    bv: config.attentionBias ? uniform(kvDim, 0.1) : null,
    qNorm: config.qkNorm ? norm(headDim) : null,
    kNorm: config.qkNorm ? norm(headDim) : null,
    ffnNorm: norm(dim),
    w1: uniform(hiddenDim * dim, inScale(dim)),
    w2: uniform(dim * hiddenDim, inScale(hiddenDim)),
    w3: uniform(hiddenDim * dim, inScale(dim)),
  }));
  const tokenEmbedding = uniform(vocabSize * dim, 1);
  const lmHead = config.tiedEmbeddings ? tokenEmbedding : uniform(vocabSize * dim, inScale(dim));
  return { config, weights: { tokenEmbedding, layers, finalNorm: norm(dim), lmHead } };
}
