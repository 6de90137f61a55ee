// AdamW (decoupled weight decay), global-norm gradient clipping and learning-rate schedules, on
// jax-js arrays. One jitted update per parameter shape; hyperparameters travel as a small array so
// changing the learning rate never recompiles.
import { jit, numpy as np, tree, type JsTree, type OwnedFunction } from '@jax-js/jax';
import { EngineError } from '../errors.ts';

type Arr = np.Array;

export interface AdamWOptions {
  beta1?: number;
  beta2?: number;
  eps?: number;
  weightDecay?: number;
}

export interface LrSchedule {
  peak: number;
  warmupSteps?: number;
  /** Steps over which 'cosine' and 'linear' decay to minRatio * peak. */
  totalSteps?: number;
  kind?: 'constant' | 'cosine' | 'linear';
  minRatio?: number;
}

/** Learning rate for optimizer step `step` (0-based): linear warmup, then the decay. */
export function learningRateAt(step: number, s: LrSchedule): number {
  const warmup = s.warmupSteps ?? 0;
  if (step < warmup) return (s.peak * (step + 1)) / warmup;
  const kind = s.kind ?? 'constant';
  if (kind === 'constant') return s.peak;
  const total = s.totalSteps;
  if (total === undefined || total <= warmup) {
    throw new EngineError(`a ${kind} schedule needs totalSteps greater than warmupSteps`);
  }
  const progress = Math.min(1, (step - warmup) / (total - warmup));
  const floor = (s.minRatio ?? 0) * s.peak;
  const shape = kind === 'cosine' ? 0.5 * (1 + Math.cos(Math.PI * progress)) : 1 - progress;
  return floor + (s.peak - floor) * shape;
}

/** [lr, 1 - beta1^t, 1 - beta2^t, gradScale] */
function adamwLeaf(beta1: number, beta2: number, eps: number, weightDecay: number) {
  return (p: Arr, g: Arr, m: Arr, v: Arr, hyper: Arr): [Arr, Arr, Arr] => {
    const lr = hyper.ref.slice(0);
    const bc1 = hyper.ref.slice(1);
    const bc2 = hyper.ref.slice(2);
    const scale = hyper.slice(3);
    const grad = g.mul(scale);
    const m2 = m.mul(beta1).add(grad.ref.mul(1 - beta1));
    const v2 = v.mul(beta2).add(np.square(grad).mul(1 - beta2));
    const update = m2.ref
      .div(bc1)
      .div(np.sqrt(v2.ref.div(bc2)).add(eps))
      .add(p.ref.mul(weightDecay));
    return [p.sub(update.mul(lr)), m2, v2];
  };
}

export interface AdamWState {
  step: number;
  m: Float32Array[];
  v: Float32Array[];
}

export class AdamW<T extends JsTree<np.Array>> {
  readonly beta1: number;
  readonly beta2: number;
  readonly #update: OwnedFunction<(p: Arr, g: Arr, m: Arr, v: Arr, h: Arr) => [Arr, Arr, Arr]>;
  #m: Arr[] | null = null;
  #v: Arr[] | null = null;
  #t = 0;

  constructor(options: AdamWOptions = {}) {
    this.beta1 = options.beta1 ?? 0.9;
    this.beta2 = options.beta2 ?? 0.999;
    this.#update = jit(
      adamwLeaf(this.beta1, this.beta2, options.eps ?? 1e-8, options.weightDecay ?? 0.01),
    );
  }

  get stepCount(): number {
    return this.#t;
  }

  /** Applies `grads` (consumed) scaled by `gradScale` to `params` (consumed); returns the new tree. */
  apply(params: T, grads: T, lr: number, gradScale: number): T {
    const [leaves, def] = tree.flatten(params);
    const [gradLeaves] = tree.flatten(grads);
    this.#m ??= leaves.map((p) => np.zerosLike(p.ref));
    this.#v ??= leaves.map((p) => np.zerosLike(p.ref));
    this.#t++;
    const dtype = leaves[0]?.dtype ?? np.float32;
    const out: Arr[] = [];
    leaves.forEach((p, i) => {
      const hyper = np
        .array([lr, 1 - this.beta1 ** this.#t, 1 - this.beta2 ** this.#t, gradScale])
        .astype(dtype);
      const m = this.#m?.[i];
      const v = this.#v?.[i];
      const g = gradLeaves[i];
      if (!m || !v || !g) throw new EngineError('optimizer state does not match the parameters');
      const [p2, m2, v2] = this.#update(p, g, m, v, hyper);
      out.push(p2);
      if (this.#m) this.#m[i] = m2;
      if (this.#v) this.#v[i] = v2;
    });
    return tree.unflatten(def, out) as T;
  }

  /** Moments and step count on the host (checkpoints); empty moments before the first step. */
  async exportState(): Promise<AdamWState> {
    const host = async (list: Arr[] | null) =>
      Promise.all(
        (list ?? []).map(async (a) => Float32Array.from((await a.ref.data()) as ArrayLike<number>)),
      );
    return { step: this.#t, m: await host(this.#m), v: await host(this.#v) };
  }

  /** Restores `exportState`'s values; `like` gives each moment's shape (the parameters). */
  importState(state: AdamWState, like: T): void {
    const leaves = tree.leaves(like);
    if (
      state.m.length !== 0 &&
      (state.m.length !== leaves.length || state.v.length !== leaves.length)
    ) {
      throw new EngineError('optimizer state does not match the parameters');
    }
    tree.dispose([...(this.#m ?? []), ...(this.#v ?? [])]);
    const up = (data: Float32Array, i: number): Arr => {
      const leaf = leaves[i];
      if (!leaf) throw new EngineError('optimizer state does not match the parameters');
      return np.array(Float32Array.from(data), { shape: leaf.shape }).astype(leaf.dtype);
    };
    this.#m = state.m.length ? state.m.map(up) : null;
    this.#v = state.v.length ? state.v.map(up) : null;
    this.#t = state.step;
  }

  dispose(): void {
    tree.dispose([...(this.#m ?? []), ...(this.#v ?? [])]);
    this.#m = null;
    this.#v = null;
    this.#update.dispose();
  }
}

/** sqrt(sum of squares) over every leaf (does not consume `grads`). */
export async function globalNorm(grads: JsTree<Arr>): Promise<number> {
  const leaves = tree.leaves(grads);
  let total = 0;
  for (const leaf of leaves)
    total += Number(
      await np
        .square(leaf.ref)
        .sum()
        .astype(np.float32)
        .data()
        .then((d) => d[0]),
    );
  return Math.sqrt(total);
}
