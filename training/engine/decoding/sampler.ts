// Next-token choice: greedy (temperature 0) or temperature + top-p sampling, with llama2.c's
// xorshift64* generator and float32 arithmetic, so a seed gives the same tokens as its run.c.
import { GenerationError } from '../errors.ts';

export interface SamplingOptions {
  /** 0 = greedy (the default). */
  temperature?: number;
  /** Nucleus mass in (0, 1); 1 or 0 samples from the whole distribution. Default 0.9. */
  topP?: number;
  /** Default: the current time, as run.c does. */
  seed?: number;
}

export class Xorshift64 {
  #state: bigint;
  constructor(seed: number | bigint) {
    this.#state = BigInt.asUintN(64, BigInt(seed));
  }
  nextU32(): number {
    let s = this.#state;
    s ^= s >> 12n;
    s = BigInt.asUintN(64, s ^ (s << 25n));
    s ^= s >> 27n;
    this.#state = s;
    return Number(BigInt.asUintN(64, s * 0x2545f4914f6cdd1dn) >> 32n);
  }
  /** A float32 in [0, 1). */
  nextF32(): number {
    return (this.nextU32() >>> 8) / 16777216;
  }
}

export function argmax(logits: Float32Array, offset = 0, size = logits.length): number {
  let best = 0;
  let max = logits[offset] ?? -Infinity;
  for (let i = 1; i < size; i++) {
    const v = logits[offset + i] ?? -Infinity;
    if (v > max) {
      max = v;
      best = i;
    }
  }
  return best;
}

export class Sampler {
  readonly temperature: number;
  readonly topP: number;
  readonly #rng: Xorshift64;
  #probs = new Float32Array(0);
  #order: number[] = [];

  constructor(options: SamplingOptions = {}) {
    const temperature = options.temperature ?? 0;
    const topP = options.topP ?? 0.9;
    if (!(temperature >= 0 && Number.isFinite(temperature))) {
      throw new GenerationError(`temperature must be 0 or more, got ${temperature}`);
    }
    if (!(topP >= 0 && topP <= 1))
      throw new GenerationError(`top-p must be in [0, 1], got ${topP}`);
    this.temperature = temperature;
    this.topP = topP;
    this.#rng = new Xorshift64(options.seed ?? Math.floor(Date.now() / 1000));
  }

  /** Picks a token from `size` logits starting at `offset`. */
  sample(logits: Float32Array, offset = 0, size = logits.length - offset): number {
    if (this.temperature === 0) return argmax(logits, offset, size);
    if (this.#probs.length !== size) this.#probs = new Float32Array(size);
    const probs = this.#probs;
    const f = Math.fround;
    let max = -Infinity;
    for (let i = 0; i < size; i++) {
      const v = f((logits[offset + i] ?? 0) / this.temperature);
      probs[i] = v;
      if (v > max) max = v;
    }
    let sum = 0;
    for (let i = 0; i < size; i++) {
      const e = f(Math.exp(f((probs[i] ?? 0) - max)));
      probs[i] = e;
      sum = f(sum + e);
    }
    for (let i = 0; i < size; i++) probs[i] = (probs[i] ?? 0) / sum;
    const coin = this.#rng.nextF32();
    if (this.topP <= 0 || this.topP >= 1) return sampleMultinomial(probs, coin);
    return this.#sampleTopP(probs, coin);
  }

  #sampleTopP(probs: Float32Array, coin: number): number {
    const f = Math.fround;
    const n = probs.length;
    const topP = f(this.topP);
    // Tokens below this cannot be in the nucleus; dropping them first keeps the sort short.
    const cutoff = f(f(1 - topP) / (n - 1));
    const order = this.#order;
    order.length = 0;
    for (let i = 0; i < n; i++) if ((probs[i] ?? 0) >= cutoff) order.push(i);
    order.sort((a, b) => (probs[b] ?? 0) - (probs[a] ?? 0));
    let cumulative = 0;
    let last = order.length - 1;
    for (let i = 0; i < order.length; i++) {
      cumulative = f(cumulative + (probs[order[i] ?? 0] ?? 0));
      if (cumulative > topP) {
        last = i;
        break;
      }
    }
    const r = f(coin * cumulative);
    let cdf = 0;
    for (let i = 0; i <= last; i++) {
      cdf = f(cdf + (probs[order[i] ?? 0] ?? 0));
      if (r < cdf) return order[i] ?? 0;
    }
    return order[last] ?? 0;
  }
}

function sampleMultinomial(probs: Float32Array, coin: number): number {
  let cdf = 0;
  for (let i = 0; i < probs.length; i++) {
    cdf = Math.fround(cdf + (probs[i] ?? 0));
    if (coin < cdf) return i;
  }
  return probs.length - 1;
}
