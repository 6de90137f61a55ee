// Test-only: a float64 forward pass written straight from Hugging Face's modeling code (rotate_half
// rotary embeddings with their rope_scaling formulas, repeat_kv GQA, Qwen2 biases, Qwen3 q/k norms),
// and tiny random models whose weights are exact in bf16 and f16, so every dtype loads the same.
import { float32Of, type WeightArray } from './bf16.ts';
import type { DecoderConfig } from './model-config.ts';
import type { DecoderModel, LayerWeights } from './weights.ts';

function hfInverseFrequencies(c: DecoderConfig): number[] {
  const dim = c.headDim;
  const base = Array.from({ length: dim / 2 }, (_, j) => 1 / c.ropeTheta ** ((2 * j) / dim));
  const s = c.ropeScaling;
  if (s.kind === 'none') return base;
  if (s.kind === 'linear') return base.map((f) => f / s.factor);
  if (s.kind === 'llama3') {
    const low = s.originalMaxPositions / s.lowFreqFactor;
    const high = s.originalMaxPositions / s.highFreqFactor;
    return base.map((f) => {
      const wavelen = (2 * Math.PI) / f;
      if (wavelen < high) return f;
      if (wavelen > low) return f / s.factor;
      const smooth =
        (s.originalMaxPositions / wavelen - s.lowFreqFactor) / (s.highFreqFactor - s.lowFreqFactor);
      return (1 - smooth) * (f / s.factor) + smooth * f;
    });
  }
  const correction = (rot: number) =>
    (dim * Math.log(s.originalMaxPositions / (rot * 2 * Math.PI))) / (2 * Math.log(c.ropeTheta));
  const low = Math.max(Math.floor(correction(s.betaFast)), 0);
  const high = Math.min(Math.ceil(correction(s.betaSlow)), dim - 1);
  const top = low === high ? high + 0.001 : high;
  return base.map((f, j) => {
    const ramp = Math.min(1, Math.max(0, (j - low) / (top - low)));
    const extrapolation = 1 - ramp;
    return (f / s.factor) * (1 - extrapolation) + f * extrapolation;
  });
}

export function referenceLogits(model: DecoderModel, tokens: readonly number[]): number[][] {
  const { config: c, weights: w } = model;
  const { dim: D, headDim: hd, nHeads: H, nKvHeads: KV } = c;
  const half = hd / 2;
  const inv = hfInverseFrequencies(c);
  const scale = c.ropeScaling.kind === 'yarn' ? c.ropeScaling.attentionFactor : 1;
  const rms = (v: number[], g: Float32Array): number[] => {
    const r = Math.sqrt(v.reduce((a, b) => a + b * b, 0) / v.length + c.normEps);
    return v.map((x, i) => (x / r) * (g[i] ?? 0));
  };
  const lin = (
    v: number[],
    weights: WeightArray,
    out: number,
    b: Float32Array | null,
  ): number[] => {
    const W = float32Of(weights);
    return Array.from({ length: out }, (_, r) => {
      let s = b ? (b[r] ?? 0) : 0;
      for (let i = 0; i < v.length; i++) s += (W[r * v.length + i] ?? 0) * (v[i] ?? 0);
      return s;
    });
  };
  const headNorm = (v: number[], heads: number, g: Float32Array | null): number[] =>
    g ? Array.from({ length: heads }, (_, h) => rms(v.slice(h * hd, (h + 1) * hd), g)).flat() : v;
  const rope = (v: number[], heads: number, pos: number): number[] => {
    const out = [...v];
    for (let h = 0; h < heads; h++) {
      for (let j = 0; j < half; j++) {
        const a = v[h * hd + j] ?? 0;
        const b = v[h * hd + j + half] ?? 0;
        const cos = Math.cos(pos * (inv[j] ?? 0)) * scale;
        const sin = Math.sin(pos * (inv[j] ?? 0)) * scale;
        out[h * hd + j] = a * cos - b * sin;
        out[h * hd + j + half] = b * cos + a * sin;
      }
    }
    return out;
  };
  const embedding = float32Of(w.tokenEmbedding);
  let x = tokens.map((t) => Array.from(embedding.subarray(t * D, (t + 1) * D)));
  for (const l of w.layers) {
    const h = x.map((v) => rms(v, l.attnNorm));
    const q = h.map((v, t) => rope(headNorm(lin(v, l.wq, H * hd, l.bq), H, l.qNorm), H, t));
    const k = h.map((v, t) => rope(headNorm(lin(v, l.wk, KV * hd, l.bk), KV, l.kNorm), KV, t));
    const val = h.map((v) => lin(v, l.wv, KV * hd, l.bv));
    const attended = q.map((qt, t) => {
      const out: number[] = [];
      for (let head = 0; head < H; head++) {
        const kvHead = Math.floor(head / (H / KV));
        const scores = k.slice(0, t + 1).map((ks) => {
          let s = 0;
          for (let i = 0; i < hd; i++) s += (qt[head * hd + i] ?? 0) * (ks[kvHead * hd + i] ?? 0);
          return s / Math.sqrt(hd);
        });
        const max = Math.max(...scores);
        const e = scores.map((s) => Math.exp(s - max));
        const sum = e.reduce((a, b) => a + b, 0);
        for (let i = 0; i < hd; i++) {
          out.push(e.reduce((acc, p, s) => acc + (p / sum) * (val[s]?.[kvHead * hd + i] ?? 0), 0));
        }
      }
      return out;
    });
    x = x.map((v, t) => {
      const o = lin(attended[t] ?? [], l.wo, D, null);
      return v.map((xi, i) => xi + (o[i] ?? 0));
    });
    x = x.map((v) => {
      const n = rms(v, l.ffnNorm);
      const g = lin(n, l.w1, c.hiddenDim, null);
      const u = lin(n, l.w3, c.hiddenDim, null);
      const act = g.map((gi, i) => (gi / (1 + Math.exp(-gi))) * (u[i] ?? 0));
      const f = lin(act, l.w2, D, null);
      return v.map((xi, i) => xi + (f[i] ?? 0));
    });
  }
  return x.map((v) => lin(rms(v, w.finalNorm), w.lmHead, c.vocabSize, null));
}

/** Random weights k / 2^s with |k| < 128: exact in bf16 and f16. */
export function tinyRandomModel(config: DecoderConfig, seed: number): DecoderModel {
  let state = seed >>> 0;
  const next = (): number => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
  const exact = (n: number, shift: number): Float32Array =>
    Float32Array.from({ length: n }, () => Math.round((next() * 2 - 1) * 127) / 2 ** shift);
  const norm = (n: number): Float32Array =>
    Float32Array.from({ length: n }, () => 1 + Math.round((next() * 2 - 1) * 32) / 128);
  const { dim, hiddenDim, nHeads, nKvHeads, headDim, vocabSize } = config;
  const layer = (): LayerWeights => ({
    attnNorm: norm(dim),
    wq: exact(nHeads * headDim * dim, 9),
    wk: exact(nKvHeads * headDim * dim, 9),
    wv: exact(nKvHeads * headDim * dim, 9),
    wo: exact(dim * nHeads * headDim, 9),
    bq: config.attentionBias ? exact(nHeads * headDim, 8) : null,
    bk: config.attentionBias ? exact(nKvHeads * headDim, 8) : null,
    bv: config.attentionBias ? exact(nKvHeads * headDim, 8) : null,
    qNorm: config.qkNorm ? norm(headDim) : null,
    kNorm: config.qkNorm ? norm(headDim) : null,
    ffnNorm: norm(dim),
    w1: exact(hiddenDim * dim, 9),
    w2: exact(dim * hiddenDim, 9),
    w3: exact(hiddenDim * dim, 9),
  });
  const tokenEmbedding = exact(vocabSize * dim, 7);
  return {
    config,
    weights: {
      tokenEmbedding,
      layers: Array.from({ length: config.nLayers }, layer),
      finalNorm: norm(dim),
      lmHead: config.tiedEmbeddings ? tokenEmbedding : exact(vocabSize * dim, 8),
    },
  };
}

/** Largest absolute difference over the largest reference magnitude, all positions together. */
export function relativeError(
  decoded: readonly ArrayLike<number>[],
  reference: number[][],
): number {
  let maxDiff = 0;
  let maxRef = 0;
  reference.forEach((row, t) => {
    row.forEach((r, i) => {
      maxRef = Math.max(maxRef, Math.abs(r));
      maxDiff = Math.max(maxDiff, Math.abs(r - (decoded[t]?.[i] ?? NaN)));
    });
  });
  return maxDiff / maxRef;
}
