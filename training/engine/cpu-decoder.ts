// Plain typed-array forward pass for decoding on the CPU. One token per sequence per step; the
// weights are read once per step for all sequences of the batch. Follows llama2.c's run.c op for
// op (so stories260K's greedy output matches it byte for byte) plus Qwen's biases and q/k norms.
import type { DecodeInput, Decoder, DecoderOptions } from './decoder.ts';
import { DEFAULT_MAX_SEQ_LEN } from './decoder.ts';
import { GenerationError } from './errors.ts';
import type { DecoderConfig } from './model-config.ts';
import { applyRope, ropeTables, type RopeTables } from './rope.ts';
import type { DecoderModel, DecoderWeights } from './weights.ts';

/** out[b*rows + r] = W[r,:] . x[b*cols : (b+1)*cols] for the `batch` vectors of x. */
export function matmulRows(
  out: Float32Array,
  x: Float32Array,
  w: Float32Array,
  rows: number,
  cols: number,
  batch: number,
): void {
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

function addBias(v: Float32Array, bias: Float32Array | null, size: number, batch: number): void {
  if (!bias) return;
  for (let b = 0; b < batch; b++) {
    for (let i = 0; i < size; i++) v[b * size + i] = (v[b * size + i] ?? 0) + (bias[i] ?? 0);
  }
}

interface SlotCache {
  /** Per layer: [maxSeqLen, kvDim] */
  keys: Float32Array[];
  values: Float32Array[];
}

interface Scratch {
  batch: number;
  x: Float32Array;
  xb: Float32Array;
  q: Float32Array;
  k: Float32Array;
  v: Float32Array;
  att: Float32Array;
  attOut: Float32Array;
  hb: Float32Array;
  hb2: Float32Array;
  logits: Float32Array;
}

export class CpuDecoder implements Decoder {
  readonly backend = 'wasm' as const;
  readonly implementation = 'js-f32';
  readonly config: DecoderConfig;
  readonly maxBatch: number;
  readonly maxSeqLen: number;
  readonly #weights: DecoderWeights;
  readonly #rope: RopeTables;
  readonly #slots: (SlotCache | undefined)[];
  #scratch: Scratch | undefined;

  constructor(model: DecoderModel, options: DecoderOptions = {}) {
    this.config = model.config;
    this.#weights = model.weights;
    this.maxBatch = options.maxBatch ?? 1;
    this.maxSeqLen = Math.min(options.maxSeqLen ?? DEFAULT_MAX_SEQ_LEN, model.config.maxSeqLen);
    this.#rope = ropeTables(model.config, this.maxSeqLen);
    this.#slots = new Array<SlotCache | undefined>(this.maxBatch).fill(undefined);
  }

  step(inputs: readonly DecodeInput[]): Promise<Float32Array> {
    return Promise.resolve(this.stepSync(inputs));
  }

  /** The synchronous form of `step` (the returned array is reused by the next call). */
  stepSync(inputs: readonly DecodeInput[]): Float32Array {
    const c = this.config;
    const w = this.#weights;
    const batch = inputs.length;
    const s = this.#scratchFor(batch);
    const { dim, headDim, nHeads, nKvHeads, hiddenDim, vocabSize } = c;
    const qDim = nHeads * headDim;
    const kvDim = nKvHeads * headDim;
    const caches = inputs.map((input) => this.#slotFor(input));
    for (let b = 0; b < batch; b++) {
      const token = inputs[b]?.token ?? -1;
      if (!(token >= 0 && token < vocabSize)) {
        throw new GenerationError(`token ${token} is outside the vocabulary (0..${vocabSize - 1})`);
      }
      s.x.set(w.tokenEmbedding.subarray(token * dim, (token + 1) * dim), b * dim);
    }
    const attScale = 1 / Math.sqrt(headDim);
    const group = nHeads / nKvHeads;
    for (let l = 0; l < c.nLayers; l++) {
      const lw = w.layers[l];
      if (!lw) throw new GenerationError(`layer ${l} is missing`);
      for (let b = 0; b < batch; b++)
        rmsNorm(s.xb, b * dim, s.x, b * dim, lw.attnNorm, dim, c.normEps);
      matmulRows(s.q, s.xb, lw.wq, qDim, dim, batch);
      matmulRows(s.k, s.xb, lw.wk, kvDim, dim, batch);
      matmulRows(s.v, s.xb, lw.wv, kvDim, dim, batch);
      addBias(s.q, lw.bq, qDim, batch);
      addBias(s.k, lw.bk, kvDim, batch);
      addBias(s.v, lw.bv, kvDim, batch);
      for (let b = 0; b < batch; b++) {
        const pos = inputs[b]?.pos ?? 0;
        const cache = caches[b] ?? this.#slotFor(inputs[b] ?? { slot: -1, token: 0, pos: 0 });
        if (lw.qNorm && lw.kNorm) {
          for (let h = 0; h < nHeads; h++) {
            const o = b * qDim + h * headDim;
            rmsNorm(s.q, o, s.q, o, lw.qNorm, headDim, c.normEps);
          }
          for (let h = 0; h < nKvHeads; h++) {
            const o = b * kvDim + h * headDim;
            rmsNorm(s.k, o, s.k, o, lw.kNorm, headDim, c.normEps);
          }
        }
        applyRope(s.q, b * qDim, nHeads, headDim, pos, this.#rope, c.ropeStyle);
        applyRope(s.k, b * kvDim, nKvHeads, headDim, pos, this.#rope, c.ropeStyle);
        const keys = cache.keys[l] ?? new Float32Array(0);
        const values = cache.values[l] ?? new Float32Array(0);
        keys.set(s.k.subarray(b * kvDim, (b + 1) * kvDim), pos * kvDim);
        values.set(s.v.subarray(b * kvDim, (b + 1) * kvDim), pos * kvDim);
        this.#attend(s, b, pos, keys, values, attScale, group);
      }
      matmulRows(s.xb, s.attOut, lw.wo, dim, qDim, batch);
      for (let i = 0; i < batch * dim; i++) s.x[i] = (s.x[i] ?? 0) + (s.xb[i] ?? 0);
      for (let b = 0; b < batch; b++)
        rmsNorm(s.xb, b * dim, s.x, b * dim, lw.ffnNorm, dim, c.normEps);
      matmulRows(s.hb, s.xb, lw.w1, hiddenDim, dim, batch);
      matmulRows(s.hb2, s.xb, lw.w3, hiddenDim, dim, batch);
      for (let i = 0; i < batch * hiddenDim; i++) {
        const g = s.hb[i] ?? 0;
        s.hb[i] = (g / (1 + Math.exp(-g))) * (s.hb2[i] ?? 0);
      }
      matmulRows(s.xb, s.hb, lw.w2, dim, hiddenDim, batch);
      for (let i = 0; i < batch * dim; i++) s.x[i] = (s.x[i] ?? 0) + (s.xb[i] ?? 0);
    }
    for (let b = 0; b < batch; b++)
      rmsNorm(s.x, b * dim, s.x, b * dim, w.finalNorm, dim, c.normEps);
    matmulRows(s.logits, s.x, w.lmHead, vocabSize, dim, batch);
    return s.logits;
  }

  #attend(
    s: Scratch,
    b: number,
    pos: number,
    keys: Float32Array,
    values: Float32Array,
    scale: number,
    group: number,
  ): void {
    const { headDim, nHeads, nKvHeads } = this.config;
    const qDim = nHeads * headDim;
    const kvDim = nKvHeads * headDim;
    const att = s.att;
    for (let h = 0; h < nHeads; h++) {
      const qo = b * qDim + h * headDim;
      const ko = Math.floor(h / group) * headDim;
      let max = -Infinity;
      for (let t = 0; t <= pos; t++) {
        let score = 0;
        const kt = t * kvDim + ko;
        for (let i = 0; i < headDim; i++) score += (s.q[qo + i] ?? 0) * (keys[kt + i] ?? 0);
        score *= scale;
        att[t] = score;
        if (score > max) max = score;
      }
      let sum = 0;
      for (let t = 0; t <= pos; t++) {
        const e = Math.exp((att[t] ?? 0) - max);
        att[t] = e;
        sum += e;
      }
      const out = s.attOut;
      out.fill(0, qo, qo + headDim);
      for (let t = 0; t <= pos; t++) {
        const a = (att[t] ?? 0) / sum;
        const vt = t * kvDim + ko;
        for (let i = 0; i < headDim; i++)
          out[qo + i] = (out[qo + i] ?? 0) + a * (values[vt + i] ?? 0);
      }
    }
  }

  #slotFor(input: DecodeInput): SlotCache {
    const { slot, pos } = input;
    if (!(slot >= 0 && slot < this.maxBatch)) {
      throw new GenerationError(`slot ${slot} does not exist (this decoder has ${this.maxBatch})`);
    }
    if (!(pos >= 0 && pos < this.maxSeqLen)) {
      throw new GenerationError(
        `position ${pos} is past the context of ${this.maxSeqLen} tokens; shorten the prompt or the steps`,
      );
    }
    let cache = this.#slots[slot];
    if (!cache) {
      const size = this.maxSeqLen * this.config.nKvHeads * this.config.headDim;
      cache = {
        keys: Array.from({ length: this.config.nLayers }, () => new Float32Array(size)),
        values: Array.from({ length: this.config.nLayers }, () => new Float32Array(size)),
      };
      this.#slots[slot] = cache;
    }
    return cache;
  }

  #scratchFor(batch: number): Scratch {
    if (this.#scratch?.batch === batch) return this.#scratch;
    const { dim, hiddenDim, nHeads, nKvHeads, headDim, vocabSize } = this.config;
    const scratch: Scratch = {
      batch,
      x: new Float32Array(batch * dim),
      xb: new Float32Array(batch * dim),
      q: new Float32Array(batch * nHeads * headDim),
      k: new Float32Array(batch * nKvHeads * headDim),
      v: new Float32Array(batch * nKvHeads * headDim),
      att: new Float32Array(this.maxSeqLen),
      attOut: new Float32Array(batch * nHeads * headDim),
      hb: new Float32Array(batch * hiddenDim),
      hb2: new Float32Array(batch * hiddenDim),
      logits: new Float32Array(batch * vocabSize),
    };
    this.#scratch = scratch;
    return scratch;
  }

  dispose(): void {
    this.#slots.fill(undefined);
    this.#scratch = undefined;
  }
}
