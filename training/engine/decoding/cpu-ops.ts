// The CPU decoder's plain-JS pieces: matrix rows (the fallback where WebAssembly SIMD is missing,
// and the kernels' test reference), RMSNorm, biases, attention's softmax, embedding rows (bf16
// widened on read), and the weights moved into the WebAssembly arenas the SIMD kernels read.
import type { WeightArenas } from '../kernels/weight-arenas.ts';
import { Bf16Array, type WeightArray } from '../loading/bf16.ts';
import type { DecoderWeights } from '../loading/weights.ts';

/** out[b*rows + r] = W[r,:] . x[b*cols : (b+1)*cols] for the `batch` vectors of x. */
export function matmulRows(
  out: Float32Array,
  x: Float32Array,
  weights: WeightArray,
  rows: number,
  cols: number,
  batch: number,
): void {
  if (weights instanceof Bf16Array) {
    // Plain JS over bf16 (no SIMD): widen one row at a time.
    const row = new Float32Array(cols);
    for (let r = 0; r < rows; r++) {
      weights.widenInto(row, 0, r * cols, cols);
      matmulRows(out.subarray(r), x, row, 1, cols, 1);
      for (let b = 1; b < batch; b++) {
        matmulRows(out.subarray(b * rows + r), x.subarray(b * cols), row, 1, cols, 1);
      }
    }
    return;
  }
  const w = weights;
  for (let r = 0; r < rows; r++) {
    const wo = r * cols;
    for (let b = 0; b < batch; b++) {
      const xo = b * cols;
      let s0 = 0;
      let s1 = 0;
      let s2 = 0;
      let s3 = 0;
      let c = 0;
      for (; c + 3 < cols; c += 4) {
        s0 += (w[wo + c] ?? 0) * (x[xo + c] ?? 0);
        s1 += (w[wo + c + 1] ?? 0) * (x[xo + c + 1] ?? 0);
        s2 += (w[wo + c + 2] ?? 0) * (x[xo + c + 2] ?? 0);
        s3 += (w[wo + c + 3] ?? 0) * (x[xo + c + 3] ?? 0);
      }
      for (; c < cols; c++) s0 += (w[wo + c] ?? 0) * (x[xo + c] ?? 0);
      out[b * rows + r] = s0 + s1 + s2 + s3;
    }
  }
}

export function rmsNorm(
  out: Float32Array,
  outOffset: number,
  x: Float32Array,
  xOffset: number,
  weight: Float32Array,
  size: number,
  eps: number,
): void {
  let ss = 0;
  for (let i = 0; i < size; i++) {
    const v = x[xOffset + i] ?? 0;
    ss += v * v;
  }
  const scale = 1 / Math.sqrt(Math.fround(Math.fround(ss / size) + eps));
  for (let i = 0; i < size; i++) {
    out[outOffset + i] = (weight[i] ?? 0) * (scale * (x[xOffset + i] ?? 0));
  }
}

export function addBias(
  v: Float32Array,
  bias: Float32Array | null,
  size: number,
  batch: number,
): void {
  if (!bias) return;
  for (let b = 0; b < batch; b++) {
    for (let i = 0; i < size; i++) v[b * size + i] = (v[b * size + i] ?? 0) + (bias[i] ?? 0);
  }
}

export function embeddingRow(
  table: WeightArray,
  token: number,
  dim: number,
  out: Float32Array,
  offset: number,
): void {
  if (table instanceof Bf16Array) table.widenInto(out, offset, token * dim, dim);
  else out.set(table.subarray(token * dim, (token + 1) * dim), offset);
}

/** The weights with every linear in the arenas (copied unless loaded there); norms stay in JS. */
export function inArenas(arenas: WeightArenas, w: DecoderWeights): DecoderWeights {
  const lmHead = arenas.place(w.lmHead);
  return {
    // A tied table is read from the arenas' copy: one copy of the largest tensor, not two.
    tokenEmbedding: w.tokenEmbedding === w.lmHead ? lmHead : w.tokenEmbedding,
    finalNorm: w.finalNorm,
    lmHead,
    layers: w.layers.map((l) => ({
      ...l,
      wq: arenas.place(l.wq),
      wk: arenas.place(l.wk),
      wv: arenas.place(l.wv),
      wo: arenas.place(l.wo),
      w1: arenas.place(l.w1),
      w2: arenas.place(l.w2),
      w3: arenas.place(l.w3),
      ...(l.deltaNet
        ? {
            deltaNet: {
              ...l.deltaNet,
              inQkv: arenas.place(l.deltaNet.inQkv),
              inZ: arenas.place(l.deltaNet.inZ),
              inB: arenas.place(l.deltaNet.inB),
              inA: arenas.place(l.deltaNet.inA),
              out: arenas.place(l.deltaNet.out),
            },
          }
        : {}),
    })),
  };
}

/** Attention weights in place: att[0..n) holds q . k_t, becomes softmax(scale * att). */
export function softmaxScores(att: Float32Array, n: number, scale: number): void {
  let max = -Infinity;
  for (let t = 0; t < n; t++) max = Math.max(max, (att[t] ?? 0) * scale);
  let sum = 0;
  for (let t = 0; t < n; t++) {
    const e = Math.exp((att[t] ?? 0) * scale - max);
    att[t] = e;
    sum += e;
  }
  for (let t = 0; t < n; t++) att[t] = (att[t] ?? 0) / sum;
}
