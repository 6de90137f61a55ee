// Typed-array forward pass for decoding on the CPU: up to 16 positions per slot per step. The
// linears run in a hand-written WebAssembly SIMD kernel (`wasm-matvec.ts`) over weights in its
// memory; norms, rotary and attention are plain JS (`cpu-ops.ts`), so nothing is dispatched per
// op. Follows llama2.c's run.c op for op (stories260K's greedy output matches it byte for byte),
// plus Qwen's biases and q/k norms and Qwen3.5's Gated DeltaNet (`delta-net-cpu.ts`).
import type { DecodeInput, Decoder, DecoderOptions } from './decoder.ts';
import { DEFAULT_MAX_SEQ_LEN } from './decoder.ts';
import { GenerationError } from '../errors.ts';
import { deltaNetDims, isLinearLayer, type DecoderConfig } from '../loading/model-config.ts';
import { applyRope, ropeTables, type RopeTables } from '../kernels/rope.ts';
import { WeightArenas } from '../kernels/weight-arenas.ts';
import type { AttentionKernels } from '../kernels/wasm-attention.ts';
import { Bf16Array, type WeightArray } from '../loading/bf16.ts';
import { weightBytes } from '../loading/weights.ts';
import type {
  DecoderModel,
  DecoderWeights,
  DeltaNetWeights,
  LayerWeights,
} from '../loading/weights.ts';
import { addBias, embeddingRow, inArenas, matmulRows, rmsNorm, softmaxScores } from './cpu-ops.ts';
import { allocateScratch, scratchRows, scratchSizes, type Scratch } from './cpu-scratch.ts';
import {
  deltaNetPosition,
  deltaNetScratch,
  newDeltaNetState,
  resetDeltaNetState,
  type DeltaNetScratch,
  type DeltaNetState,
} from './delta-net-cpu.ts';

interface SlotCache {
  /** Per layer: [maxSeqLen, kvDim] (empty in linear-attention layers). */
  keys: Float32Array[];
  values: Float32Array[];
  /** Per layer: Gated DeltaNet state (linear-attention layers only). */
  deltaNet: (DeltaNetState | undefined)[];
  /** The position the slot's next input must have (a recurrent state cannot go back). */
  nextPos: number;
}

/** Prompt positions of one sequence a step takes (the scratch holds maxBatch times this). */
const PREFILL_CHUNK = 16;

export interface CpuDecoderOptions extends DecoderOptions {
  /** false: plain JS linears only (the reference the SIMD kernel is tested against). */
  simd?: boolean;
  /** The memories the model was loaded into (its weights are then used where they lie). */
  arenas?: WeightArenas;
}

export class CpuDecoder implements Decoder {
  readonly backend = 'wasm' as const;
  readonly implementation: string;
  readonly notes: string[] = [];
  readonly config: DecoderConfig;
  readonly maxBatch: number;
  readonly maxChunk = PREFILL_CHUNK;
  readonly maxSeqLen: number;
  readonly #weights: DecoderWeights;
  readonly #rope: RopeTables;
  readonly #slots: (SlotCache | undefined)[];
  readonly #arenas: WeightArenas | null;
  readonly #full: Scratch;
  #scratch: Scratch | undefined;
  #deltaWork: DeltaNetScratch | undefined;

  constructor(model: DecoderModel, options: CpuDecoderOptions = {}) {
    this.config = model.config;
    this.maxBatch = options.maxBatch ?? 1;
    this.maxSeqLen = Math.min(options.maxSeqLen ?? DEFAULT_MAX_SEQ_LEN, model.config.maxSeqLen);
    this.#rope = ropeTables(model.config, this.maxSeqLen);
    this.#slots = new Array<SlotCache | undefined>(this.maxBatch).fill(undefined);
    const sizes = scratchSizes(model.config, this.maxBatch * PREFILL_CHUNK, this.maxSeqLen);
    const scratchBytes = 4 * Object.values(sizes).reduce((a, b) => a + b, 0) * 2;
    const c = model.config;
    const attentionLayers =
      c.nLayers - (c.hybrid?.layerTypes.filter((t) => t !== 'full_attention').length ?? 0);
    // Every slot's KV cache lives beside the weights, where the attention kernels read it.
    const cacheBytes =
      8 * this.maxBatch * attentionLayers * this.maxSeqLen * c.nKvHeads * c.headDim;
    const arenas =
      options.simd === false
        ? null
        : (options.arenas ??
          WeightArenas.create(
            weightBytes(model.weights).total + scratchBytes + cacheBytes + 4096 * 16,
          ));
    this.#arenas = arenas;
    this.#weights = arenas ? inArenas(arenas, model.weights) : model.weights;
    const make = (n: number): Float32Array => (arenas ? arenas.scratch(n) : new Float32Array(n));
    this.#full = allocateScratch(model.config, this.maxBatch * PREFILL_CHUNK, this.maxSeqLen, make);

    const half = this.#weights.lmHead instanceof Bf16Array ? 'bf16 weights, f32 compute' : 'f32';
    this.implementation = arenas ? `js + wasm-simd matvec, ${half}` : `js, ${half}`;
    if (options.precision === 'f16')
      this.notes.push('f16 was asked for; the CPU decoder computes in f32');
  }

  #matmul(
    out: Float32Array,
    x: Float32Array,
    w: WeightArray,
    rows: number,
    cols: number,
    batch: number,
  ): void {
    if (this.#arenas?.matmul(out, x, w, rows, cols, batch)) return;
    matmulRows(out, x, w, rows, cols, batch);
  }

  step(inputs: readonly DecodeInput[]): Promise<Float32Array> {
    return Promise.resolve(this.stepSync(inputs));
  }

  /**
   * The synchronous form of `step` (the returned array is reused by the next call). One function
   * on purpose: the decode's hot path, every layer of every position in one pass over the weights.
   */
  stepSync(inputs: readonly DecodeInput[]): Float32Array {
    const c = this.config;
    const w = this.#weights;
    const batch = inputs.length;
    if (batch > this.#full.batch) {
      throw new GenerationError(
        `${batch} inputs in one step; this decoder takes at most ${this.#full.batch} (${this.maxBatch} slots x ${PREFILL_CHUNK} positions)`,
      );
    }
    const s = this.#scratchFor(batch);
    const { dim, hiddenDim, vocabSize } = c;
    const caches = inputs.map((input) => this.#slotFor(input));
    for (let b = 0; b < batch; b++) {
      const token = inputs[b]?.token ?? -1;
      if (!(token >= 0 && token < vocabSize)) {
        throw new GenerationError(`token ${token} is outside the vocabulary (0..${vocabSize - 1})`);
      }
      embeddingRow(w.tokenEmbedding, token, dim, s.x, b * dim);
    }
    for (let l = 0; l < c.nLayers; l++) {
      const lw = w.layers[l];
      if (!lw) throw new GenerationError(`layer ${l} is missing`);
      for (let b = 0; b < batch; b++)
        rmsNorm(s.xb, b * dim, s.x, b * dim, lw.attnNorm, dim, c.normEps);
      if (lw.deltaNet) this.#deltaNetMixer(l, lw.deltaNet, inputs, caches, s);
      else this.#attentionMixer(l, lw, inputs, caches, s);
      for (let i = 0; i < batch * dim; i++) s.x[i] = (s.x[i] ?? 0) + (s.xb[i] ?? 0);
      for (let b = 0; b < batch; b++)
        rmsNorm(s.xb, b * dim, s.x, b * dim, lw.ffnNorm, dim, c.normEps);
      this.#matmul(s.hb, s.xb, lw.w1, hiddenDim, dim, batch);
      this.#matmul(s.hb2, s.xb, lw.w3, hiddenDim, dim, batch);
      for (let i = 0; i < batch * hiddenDim; i++) {
        const g = s.hb[i] ?? 0;
        s.hb[i] = (g / (1 + Math.exp(-g))) * (s.hb2[i] ?? 0);
      }
      this.#matmul(s.xb, s.hb, lw.w2, dim, hiddenDim, batch);
      for (let i = 0; i < batch * dim; i++) s.x[i] = (s.x[i] ?? 0) + (s.xb[i] ?? 0);
    }
    // The output head only for the rows whose logits are read (a prefill's last position): the
    // rows are packed to the front of x, their logits moved back to their places after.
    const wanted: number[] = [];
    inputs.forEach((input, b) => {
      if (input.skipLogits !== true) wanted.push(b);
    });
    wanted.forEach((b, k) => {
      if (k !== b) s.x.copyWithin(k * dim, b * dim, (b + 1) * dim);
      rmsNorm(s.x, k * dim, s.x, k * dim, w.finalNorm, dim, c.normEps);
    });
    if (wanted.length > 0) this.#matmul(s.logits, s.x, w.lmHead, vocabSize, dim, wanted.length);
    for (let k = wanted.length - 1; k >= 0; k--) {
      const b = wanted[k] ?? k;
      if (k !== b) s.logits.copyWithin(b * vocabSize, k * vocabSize, (k + 1) * vocabSize);
    }
    return s.logits;
  }

  /** Attention over the KV cache; Qwen3.5's layers also gate the heads' output. Writes s.xb. */
  #attentionMixer(
    l: number,
    lw: LayerWeights,
    inputs: readonly DecodeInput[],
    caches: readonly SlotCache[],
    s: Scratch,
  ): void {
    const c = this.config;
    const { dim, headDim, nHeads, nKvHeads } = c;
    const batch = inputs.length;
    const qDim = nHeads * headDim;
    const kvDim = nKvHeads * headDim;
    const gated = c.hybrid !== undefined;
    if (gated) {
      // q_proj writes each head's query, then its gate: [q_h (headDim), gate_h (headDim)] per head.
      this.#matmul(s.qg, s.xb, lw.wq, 2 * qDim, dim, batch);
      for (let b = 0; b < batch; b++) {
        for (let h = 0; h < nHeads; h++) {
          const from = b * 2 * qDim + h * 2 * headDim;
          s.q.set(s.qg.subarray(from, from + headDim), b * qDim + h * headDim);
          s.gate.set(s.qg.subarray(from + headDim, from + 2 * headDim), b * qDim + h * headDim);
        }
      }
    } else {
      this.#matmul(s.q, s.xb, lw.wq, qDim, dim, batch);
    }
    this.#matmul(s.k, s.xb, lw.wk, kvDim, dim, batch);
    this.#matmul(s.v, s.xb, lw.wv, kvDim, dim, batch);
    addBias(s.q, lw.bq, qDim, batch);
    addBias(s.k, lw.bk, kvDim, batch);
    addBias(s.v, lw.bv, kvDim, batch);
    const attScale = 1 / Math.sqrt(headDim);
    const group = nHeads / nKvHeads;
    for (let b = 0; b < batch; b++) {
      const pos = inputs[b]?.pos ?? 0;
      const cache = caches[b];
      if (!cache) throw new GenerationError(`input ${b} has no cache slot`);
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
    if (gated) {
      for (let i = 0; i < batch * qDim; i++) {
        s.attOut[i] = (s.attOut[i] ?? 0) / (1 + Math.exp(-(s.gate[i] ?? 0)));
      }
    }
    this.#matmul(s.xb, s.attOut, lw.wo, dim, qDim, batch);
  }

  /** Qwen3.5's Gated DeltaNet: projections batched, the recurrence position by position. */
  #deltaNetMixer(
    l: number,
    dw: DeltaNetWeights,
    inputs: readonly DecodeInput[],
    caches: readonly SlotCache[],
    s: Scratch,
  ): void {
    const c = this.config;
    const h = c.hybrid;
    if (!h) throw new GenerationError(`layer ${l} is linear attention in a dense model`);
    const { valueDim, convDim } = deltaNetDims(h);
    const nv = h.linearValueHeads;
    const { dim } = c;
    const batch = inputs.length;
    this.#matmul(s.qkv, s.xb, dw.inQkv, convDim, dim, batch);
    this.#matmul(s.z, s.xb, dw.inZ, valueDim, dim, batch);
    this.#matmul(s.beta, s.xb, dw.inB, nv, dim, batch);
    this.#matmul(s.alpha, s.xb, dw.inA, nv, dim, batch);
    const work = this.#deltaWork ?? (this.#deltaWork = deltaNetScratch(h));
    for (let b = 0; b < batch; b++) {
      const state = caches[b]?.deltaNet[l];
      if (!state) throw new GenerationError(`input ${b} has no state for layer ${l}`);
      deltaNetPosition(
        h,
        dw,
        state,
        work,
        {
          qkv: s.qkv.subarray(b * convDim, (b + 1) * convDim),
          z: s.z.subarray(b * valueDim, (b + 1) * valueDim),
          b: s.beta.subarray(b * nv, (b + 1) * nv),
          a: s.alpha.subarray(b * nv, (b + 1) * nv),
        },
        s.core.subarray(b * valueDim, (b + 1) * valueDim),
        c.normEps,
      );
    }
    this.#matmul(s.xb, s.core, dw.out, dim, valueDim, batch);
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
    const kernels = this.#arenas?.attentionFor(keys, values, s.q, att, s.attOut);
    if (kernels && headDim % 4 === 0) {
      attendInWasm(kernels, s, b, pos, keys, values, scale, group, this.config);
      return;
    }
    for (let h = 0; h < nHeads; h++) {
      const qo = b * qDim + h * headDim;
      const ko = Math.floor(h / group) * headDim;
      for (let t = 0; t <= pos; t++) {
        let score = 0;
        const kt = t * kvDim + ko;
        for (let i = 0; i < headDim; i++) score += (s.q[qo + i] ?? 0) * (keys[kt + i] ?? 0);
        att[t] = score;
      }
      softmaxScores(att, pos + 1, scale);
      const out = s.attOut;
      out.fill(0, qo, qo + headDim);
      for (let t = 0; t <= pos; t++) {
        const a = att[t] ?? 0;
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
      const c = this.config;
      const size = this.maxSeqLen * c.nKvHeads * c.headDim;
      const layers = Array.from({ length: c.nLayers }, (_, l) => isLinearLayer(c, l));
      // In the arenas (when there is room) so the attention kernels can read the cache.
      const make = (n: number): Float32Array => {
        if (n === 0 || !this.#arenas) return new Float32Array(n);
        try {
          return this.#arenas.scratch(n);
        } catch {
          return new Float32Array(n);
        }
      };
      cache = {
        keys: layers.map((linear) => make(linear ? 0 : size)),
        values: layers.map((linear) => make(linear ? 0 : size)),
        deltaNet: layers.map((linear) =>
          linear && c.hybrid ? newDeltaNetState(c.hybrid) : undefined,
        ),
        nextPos: 0,
      };
      this.#slots[slot] = cache;
    }
    if (this.config.hybrid) {
      // A new sequence starts at 0; otherwise the recurrent state holds exactly the positions
      // before this one, so a slot's inputs must follow each other.
      if (pos === 0) {
        for (const state of cache.deltaNet) if (state) resetDeltaNetState(state);
      } else if (pos !== cache.nextPos) {
        throw new GenerationError(
          `slot ${slot} is at position ${cache.nextPos}; a Gated DeltaNet state cannot go to ${pos} (start again at 0)`,
        );
      }
      cache.nextPos = pos + 1;
    }
    return cache;
  }

  #scratchFor(batch: number): Scratch {
    if (this.#scratch?.batch !== batch) this.#scratch = scratchRows(this.#full, batch);
    return this.#scratch;
  }

  dispose(): void {
    this.#slots.fill(undefined);
    this.#scratch = undefined;
  }
}

/** #attend through the WebAssembly kernels: dot products and the weighted sum in SIMD. */
function attendInWasm(
  kernels: AttentionKernels,
  s: Scratch,
  b: number,
  pos: number,
  keys: Float32Array,
  values: Float32Array,
  scale: number,
  group: number,
  c: DecoderConfig,
): void {
  const { headDim, nHeads, nKvHeads } = c;
  const qDim = nHeads * headDim;
  const stride = nKvHeads * headDim * 4;
  const att = s.att;
  for (let h = 0; h < nHeads; h++) {
    const qo = b * qDim + h * headDim;
    const ko = Math.floor(h / group) * headDim * 4;
    kernels.dots(
      att.byteOffset,
      s.q.byteOffset + qo * 4,
      keys.byteOffset + ko,
      pos + 1,
      headDim,
      stride,
    );
    softmaxScores(att, pos + 1, scale);
    kernels.weighted(
      s.attOut.byteOffset + qo * 4,
      att.byteOffset,
      values.byteOffset + ko,
      pos + 1,
      headDim,
      stride,
    );
  }
}
