// Training a decoder on jax-js: LoRA adapters (or every weight, for tiny models), per-token
// log-probabilities of given sequences, gradients of any per-token weighting of them (SFT's mean
// NLL, or the RL loss's d(loss)/d(logp)), accumulation over micro-batches, global-norm clipping,
// AdamW with a schedule, adapter checkpoints as safetensors and merged exports.
import { jit, numpy as np, tree, valueAndGrad, type JsTree, type OwnedFunction } from '@jax-js/jax';
import { EngineError } from '../errors.ts';
import { uploadWeights, type JaxWeights } from '../kernels/jax-weights.ts';
import {
  checkLoraConfig,
  downloadLora,
  initLoraArrays,
  uploadLora,
  type LoraArrays,
  type LoraConfig,
  type LoraInitOptions,
  type LoraParams,
} from './lora.ts';
import type { DecoderConfig } from '../loading/model-config.ts';
import {
  AdamW,
  globalNorm,
  learningRateAt,
  type AdamWOptions,
  type AdamWState,
  type LrSchedule,
} from './optimizer.ts';
import { ropeTables } from '../kernels/rope.ts';
import { sequenceLogProbs, sequenceStats, type SequenceOptions } from './sequence-forward.ts';
import type { DecoderModel } from '../loading/weights.ts';

type Arr = np.Array;
type Tree = JsTree<Arr>;

export interface TrainerOptions {
  /** LoRA adapters; null trains every weight (full fine-tuning, for tiny models). */
  lora: LoraConfig | null;
  loraInit?: LoraInitOptions;
  optimizer?: AdamWOptions;
  schedule: LrSchedule;
  /** Clip the global gradient norm to this (default 1; Infinity turns clipping off). */
  maxGradNorm?: number;
  /** float64 for gradient checks; float32 otherwise. */
  dtype?: np.DType;
  /** Sequences are padded to a multiple of this, so few lengths compile (default 16). */
  padTo?: number;
  /** Qwen3.5: positions per chunk of the chunked delta rule (default 16; any gives the same). */
  deltaChunk?: number;
}

/** A batch of token sequences and, per next-token position, a weight (mask or cotangent). */
interface Packed {
  tokens: Arr;
  targets: Arr;
  weights: Arr;
  cos: Arr;
  sin: Arr;
  /** [1]: 1 / the temperature the log-probs are of. */
  inverseTemperature: Arr;
  lengths: number[];
  T: number;
}

/**
 * Log-probs are of softmax(logits / temperature): the distribution a sampler at that temperature
 * draws from, which a policy gradient over its samples must differentiate (default 1).
 */
export interface ScoringOptions {
  temperature?: number;
}

type WeightedFn = (
  trainable: Tree,
  frozen: Tree,
  tokens: Arr,
  targets: Arr,
  weights: Arr,
  cos: Arr,
  sin: Arr,
  inverseTemperature: Arr,
) => Arr;

/** One batch of sequences as the forward passes read it. */
interface Sequences {
  tokens: Arr;
  targets: Arr;
  cos: Arr;
  sin: Arr;
  inverseTemperature: Arr;
}

/**
 * A function of WeightedFn's arguments that reads no per-token weights (log-probs, stats, the
 * reference): every jitted function of a Trainer takes the same arguments, so one call site feeds
 * them all; the weights are released unread.
 */
function unweighted<R>(
  body: (trainable: Tree, frozen: Tree, sequences: Sequences) => R,
): (...args: Parameters<WeightedFn>) => R {
  return (trainable, frozen, tokens, targets, weights, cos, sin, inverseTemperature) => {
    weights.dispose();
    return body(trainable, frozen, { tokens, targets, cos, sin, inverseTemperature });
  };
}

/** A packed batch as the jitted functions take it, after the two weight trees. */
function batchArgs(p: Packed): [Arr, Arr, Arr, Arr, Arr, Arr] {
  return [p.tokens, p.targets, p.weights, p.cos, p.sin, p.inverseTemperature];
}

export class Trainer {
  readonly config: DecoderConfig;
  readonly lora: LoraConfig | null;
  readonly loraScale: number;
  readonly dtype: np.DType;
  #base: JaxWeights;
  #adapters: LoraParams | null;
  #accumulated: Tree | null = null;
  #micro = 0;
  readonly #optimizer: AdamW<Tree>;
  readonly #schedule: LrSchedule;
  readonly #maxGradNorm: number;
  readonly #padTo: number;
  readonly #model: DecoderModel;
  readonly #gradFn: OwnedFunction<(...args: Parameters<WeightedFn>) => [Arr, Tree]>;
  readonly #logpFn: OwnedFunction<(...args: Parameters<WeightedFn>) => Arr>;
  readonly #statsFn: OwnedFunction<(...args: Parameters<WeightedFn>) => [Arr, Arr]>;
  /** Log-probs of the base model alone (LoRA's adapters off): RL's reference policy. */
  readonly #referenceFn: OwnedFunction<(...args: Parameters<WeightedFn>) => Arr>;

  constructor(model: DecoderModel, options: TrainerOptions) {
    this.#model = model;
    this.config = model.config;
    this.lora = options.lora;
    this.dtype = options.dtype ?? np.float32;
    this.#base = uploadWeights(model, this.dtype);
    if (options.lora) {
      checkLoraConfig(options.lora);
      this.loraScale = options.lora.alpha / options.lora.rank;
      const arrays = initLoraArrays(model.config, options.lora, options.loraInit);
      this.#adapters = uploadLora(model.config, options.lora.rank, arrays, this.dtype);
    } else {
      this.loraScale = 0;
      this.#adapters = null;
    }
    this.#optimizer = new AdamW(options.optimizer);
    this.#schedule = options.schedule;
    this.#maxGradNorm = options.maxGradNorm ?? 1;
    this.#padTo = options.padTo ?? 16;
    const c = this.config;
    const scale = this.loraScale;
    const full = options.lora === null;
    const forward: SequenceOptions = { deltaChunk: options.deltaChunk };
    // The weights a forward pass reads: all of them trainable (full fine-tuning; the frozen tree is
    // unused and released) or frozen base weights under trainable adapters.
    const split = (trainable: Tree, frozen: Tree) => {
      if (full) tree.dispose(frozen);
      return {
        base: (full ? trainable : frozen) as unknown as JaxWeights,
        adapters: full ? null : (trainable as unknown as LoraParams),
      };
    };
    // log p of the targets at 1 / inverseTemperature under the trainable tree.
    const logProbs = (trainable: Tree, frozen: Tree, s: Sequences) => {
      const { base, adapters } = split(trainable, frozen);
      return sequenceLogProbs(
        c,
        base,
        adapters,
        scale,
        s,
        s.targets,
        s.inverseTemperature,
        forward,
      );
    };
    // sum over positions of weights * logp, with the trainable tree first (what grad differentiates).
    const weighted: WeightedFn = (trainable, frozen, tokens, targets, weights, cos, sin, temp) =>
      logProbs(trainable, frozen, { tokens, targets, cos, sin, inverseTemperature: temp })
        .mul(weights)
        .sum();
    this.#gradFn = jit(valueAndGrad(weighted));
    this.#logpFn = jit(unweighted(logProbs));
    this.#statsFn = jit(
      unweighted((trainable, frozen, s) => {
        const { base, adapters } = split(trainable, frozen);
        return sequenceStats(c, base, adapters, scale, s, s.targets, s.inverseTemperature, forward);
      }),
    );
    // The reference policy reads the base weights alone: the trainable tree is released unread.
    this.#referenceFn = jit(
      unweighted((trainable, frozen, s) => {
        tree.dispose(trainable);
        const base = frozen as unknown as JaxWeights;
        return sequenceLogProbs(c, base, null, 0, s, s.targets, s.inverseTemperature, forward);
      }),
    );
  }

  #trainable(): Tree {
    return (this.#adapters ?? this.#base) as unknown as Tree;
  }

  #frozen(): Tree {
    return this.#adapters ? tree.ref(this.#base as unknown as Tree) : {};
  }

  #pack(
    sequences: readonly (readonly number[])[],
    weights: readonly (readonly number[])[] | undefined,
    scoring: ScoringOptions,
  ): Packed {
    if (sequences.length === 0) throw new EngineError('no sequences to score');
    const temperature = scoring.temperature ?? 1;
    if (!(temperature > 0 && Number.isFinite(temperature))) {
      throw new EngineError(
        `log-probs need a temperature above 0, got ${String(temperature)} (greedy decoding has none)`,
      );
    }
    const longest = Math.max(...sequences.map((s) => s.length));
    if (longest < 2) throw new EngineError('a sequence needs at least two tokens to score');
    const T = Math.ceil(longest / this.#padTo) * this.#padTo;
    if (T > this.config.maxSeqLen) {
      throw new EngineError(
        `a sequence of ${longest} tokens exceeds the context of ${this.config.maxSeqLen}`,
      );
    }
    const B = sequences.length;
    const tokens = new Int32Array(B * T);
    const targets = new Int32Array(B * (T - 1));
    const w = new Float64Array(B * (T - 1));
    sequences.forEach((seq, b) => {
      seq.forEach((token, t) => {
        if (!(token >= 0 && token < this.config.vocabSize)) {
          throw new EngineError(`token ${token} is outside the vocabulary`);
        }
        tokens[b * T + t] = token;
        if (t > 0) targets[b * (T - 1) + t - 1] = token;
      });
      const row = weights?.[b];
      for (let t = 0; t < seq.length - 1; t++) w[b * (T - 1) + t] = row ? (row[t] ?? 0) : 0;
    });
    const f64 = this.dtype === np.float64;
    const tables = ropeTables(this.config, T, f64 ? 'f64' : 'f32');
    const up = (a: Float32Array | Float64Array, shape: number[]): Arr =>
      f64
        ? np.array(Float64Array.from(a), { shape, dtype: np.float64 })
        : np.array(Float32Array.from(a), { shape });
    return {
      tokens: np.array(tokens, { shape: [B, T], dtype: np.int32 }),
      targets: np.array(targets, { shape: [B, T - 1], dtype: np.int32 }),
      weights: up(w, [B, T - 1]),
      cos: up(tables.cos, [T, tables.half]),
      sin: up(tables.sin, [T, tables.half]),
      inverseTemperature: up(Float64Array.of(1 / temperature), [1]),
      lengths: sequences.map((s) => s.length),
      T,
    };
  }

  /** log p(seq[t+1] | seq[<=t]) for each sequence (length - 1 values each). */
  async logProbs(
    sequences: readonly (readonly number[])[],
    options: { adapters?: boolean } & ScoringOptions = {},
  ): Promise<Float64Array[]> {
    const p = this.#pack(sequences, undefined, options);
    const reference = options.adapters === false && this.#adapters !== null;
    const out = (reference ? this.#referenceFn : this.#logpFn)(
      tree.ref(this.#trainable()),
      reference ? tree.ref(this.#base as unknown as Tree) : this.#frozen(),
      ...batchArgs(p),
    );
    const data = (await out.data()) as ArrayLike<number>;
    return p.lengths.map((len, b) =>
      Float64Array.from({ length: len - 1 }, (_, t) => data[b * (p.T - 1) + t] ?? NaN),
    );
  }

  /** Log-probs (as `logProbs`) and the entropy of the model's distribution at each position. */
  async logProbsAndEntropy(
    sequences: readonly (readonly number[])[],
    scoring: ScoringOptions = {},
  ): Promise<{ logp: Float64Array[]; entropy: Float64Array[] }> {
    const p = this.#pack(sequences, undefined, scoring);
    const [logp, entropy] = this.#statsFn(
      tree.ref(this.#trainable()),
      this.#frozen(),
      ...batchArgs(p),
    );
    const a = (await logp.data()) as ArrayLike<number>;
    const e = (await entropy.data()) as ArrayLike<number>;
    const rows = (data: ArrayLike<number>) =>
      p.lengths.map((len, b) =>
        Float64Array.from({ length: len - 1 }, (_, t) => data[b * (p.T - 1) + t] ?? NaN),
      );
    return { logp: rows(a), entropy: rows(e) };
  }

  /**
   * Adds the gradient of sum_t weights[b][t] * logp[b][t] to the accumulator and returns that sum.
   * With weights = -1/count on target positions this is the mean NLL; the RL loss passes its
   * d(loss)/d(logp).
   */
  async accumulate(
    sequences: readonly (readonly number[])[],
    weights: readonly (readonly number[])[],
    scoring: ScoringOptions = {},
  ): Promise<number> {
    const p = this.#pack(sequences, weights, scoring);
    const [value, grads] = this.#gradFn(
      tree.ref(this.#trainable()),
      this.#frozen(),
      ...batchArgs(p),
    );
    if (this.#accumulated) {
      this.#accumulated = tree.map((a: Arr, b: Arr) => a.add(b), this.#accumulated, grads);
    } else {
      this.#accumulated = grads;
    }
    this.#micro++;
    return Number((await value.data())[0]);
  }

  /** Mean next-token NLL over `sequences`, counting positions where `mask` (default all) is 1. */
  async accumulateNll(
    sequences: readonly (readonly number[])[],
    mask?: readonly (readonly number[])[],
  ): Promise<number> {
    const rows = sequences.map((s, b) =>
      Array.from({ length: s.length - 1 }, (_, t) => mask?.[b]?.[t] ?? 1),
    );
    const count = rows.reduce((n, r) => n + r.reduce((a, x) => a + x, 0), 0);
    if (count === 0) throw new EngineError('the mask selects no tokens');
    return await this.accumulate(
      sequences,
      rows.map((r) => r.map((x) => -x / count)),
    );
  }

  /** A copy of the accumulated gradient (tests); null before any accumulate. */
  accumulatedGradient(): Tree | null {
    return this.#accumulated ? tree.ref(this.#accumulated) : null;
  }

  /**
   * Averages the accumulated micro-batches (or sums them, when each already carries its share of
   * the loss), clips, applies AdamW; clears the accumulator. The learning rate and clipping norm
   * come from the schedule and the options unless given here.
   */
  async step(
    options: { learningRate?: number; maxGradNorm?: number; sumMicroBatches?: boolean } = {},
  ): Promise<{ gradNorm: number; learningRate: number }> {
    if (!this.#accumulated) throw new EngineError('step() before any accumulate()');
    const grads = this.#accumulated;
    const micro = options.sumMicroBatches ? 1 : this.#micro;
    this.#accumulated = null;
    this.#micro = 0;
    const norm = (await globalNorm(grads)) / micro;
    const maxNorm = options.maxGradNorm ?? this.#maxGradNorm;
    const clip = norm > maxNorm ? maxNorm / norm : 1;
    const learningRate =
      options.learningRate ?? learningRateAt(this.#optimizer.stepCount, this.#schedule);
    const updated = this.#optimizer.apply(this.#trainable(), grads, learningRate, clip / micro);
    if (this.#adapters) this.#adapters = updated as unknown as LoraParams;
    else this.#base = updated as unknown as JaxWeights;
    return { gradNorm: norm, learningRate };
  }

  optimizerState(): Promise<AdamWState> {
    return this.#optimizer.exportState();
  }

  setOptimizerState(state: AdamWState): void {
    this.#optimizer.importState(state, this.#trainable());
  }

  /** Host copies of the adapters (LoRA only). */
  async adapterArrays(): Promise<LoraArrays> {
    if (!this.#adapters)
      throw new EngineError('this trainer has no LoRA adapters (full fine-tuning)');
    return downloadLora(this.#adapters);
  }

  setAdapterArrays(arrays: LoraArrays): void {
    if (!this.#adapters || !this.lora) throw new EngineError('this trainer has no LoRA adapters');
    tree.dispose(this.#adapters as unknown as Tree);
    this.#adapters = uploadLora(this.config, this.lora.rank, arrays, this.dtype);
  }

  /** The model the trainer holds now: base weights (downloaded after full fine-tuning). */
  async currentModel(): Promise<DecoderModel> {
    if (this.#adapters) return this.#model;
    const { downloadWeights } = await import('./weights-transfer.ts');
    return downloadWeights(this.config, this.#base);
  }

  dispose(): void {
    tree.dispose(this.#base as unknown as Tree);
    if (this.#adapters) tree.dispose(this.#adapters as unknown as Tree);
    if (this.#accumulated) tree.dispose(this.#accumulated);
    this.#optimizer.dispose();
    this.#gradFn.dispose();
    this.#logpFn.dispose();
    this.#referenceFn.dispose();
    this.#statsFn.dispose();
  }
}
