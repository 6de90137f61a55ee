// The decoder's layers as jax-js ops, shared by the jitted decode step and the training forward.
// jax-js is reference-counted: every function here consumes its array arguments (use `.ref` to
// keep one), exactly like jax-js's own functions.
import { lax, nn, numpy as np } from '@jax-js/jax';
import type { DecoderConfig } from '../loading/model-config.ts';

type Arr = np.Array;

/** x * w / rms(x) over the last axis. */
export function rmsNormJ(x: Arr, weight: Arr, eps: number): Arr {
  const n = x.shape[x.shape.length - 1] ?? 1;
  const meanSquare = divJ(np.square(x.ref).sum(-1, { keepdims: true }), n);
  return x.mul(np.reciprocal(np.sqrt(meanSquare.add(exactJ(eps, x))))).mul(weight);
}

/** Rotates x [..., heads, headDim] by cos/sin that broadcast against [..., heads, headDim/2]. */
export function ropeJ(x: Arr, cos: Arr, sin: Arr, style: DecoderConfig['ropeStyle']): Arr {
  const shape = x.shape;
  const headDim = shape[shape.length - 1] ?? 0;
  const half = headDim / 2;
  const keep = shape.slice(0, -1).map((): [] => []);
  let x0: Arr;
  let x1: Arr;
  if (style === 'interleaved') {
    const pairs = x.reshape([...shape.slice(0, -1), half, 2]);
    x0 = pairs.ref.slice(...keep, [], 0);
    x1 = pairs.slice(...keep, [], 1);
  } else {
    x0 = x.ref.slice(...keep, [0, half]);
    x1 = x.slice(...keep, [half, headDim]);
  }
  const out0 = x0.ref.mul(cos.ref).sub(x1.ref.mul(sin.ref));
  const out1 = x0.mul(sin).add(x1.mul(cos));
  if (style === 'interleaved') return np.stack([out0, out1], -1).reshape(shape);
  return np.concatenate([out0, out1], -1);
}

// jax-js evaluates exp and log in float32 precision even on float64 arrays (and rounds scalar
// constants to float32), which would cap float64 gradient checks at about 1e-6. On float64 these
// use a range-reduced Taylor series for exp and one Newton step for log instead; float32 keeps
// the native ops.
const LN2_PARTS = (() => {
  const a = Math.fround(Math.LN2);
  const b = Math.fround(Math.LN2 - a);
  return [a, b, Math.fround(Math.LN2 - a - b)];
})();

/**
 * x / n. On float64 n is a float64 array: a number would become a float32 constant (mean's 1/n
 * and, under autodiff, every division by a number), about 1e-8 off.
 */
export function divJ(x: Arr, n: number): Arr {
  return x.div(exactJ(n, x));
}

/** `value` as a constant for arithmetic with `like`: a float64 array on float64 (see divJ). */
export function exactJ(value: number, like: Arr): number | Arr {
  return like.dtype === np.float64 ? np.full([1], value, { dtype: np.float64 }) : value;
}

/** x / sqrt(n), exact to the array's precision as divJ. */
export function divSqrtJ(x: Arr, n: number): Arr {
  if (x.dtype !== np.float64) return x.mul(1 / Math.sqrt(n));
  return x.div(np.sqrt(np.full([1], n, { dtype: np.float64 })));
}

export function expJ(x: Arr): Arr {
  if (x.dtype !== np.float64) return np.exp(x);
  // Below -740 exp is 0 in float64; clamping keeps masked scores (-1e30) from overflowing r.
  const clamped = np.maximum(x, -740);
  const n = np.round(clamped.ref.div(Math.fround(Math.LN2)));
  let r = clamped;
  for (const part of LN2_PARTS) r = r.sub(n.ref.mul(part));
  let p = np.onesLike(r.ref);
  for (let i = 18; i >= 1; i--) p = divJ(p.mul(r.ref), i).add(1);
  r.dispose();
  return p.mul(np.exp2(n));
}

export function logJ(x: Arr): Arr {
  if (x.dtype !== np.float64) return np.log(x);
  // Newton steps y <- y + x e^-y - 1 from float32's log; the last one carries the gradient
  // (e^-y = 1/x to the accuracy of the step before it).
  const y0 = lax.stopGradient(np.log(x.ref));
  const y1 = lax.stopGradient(y0.ref.add(x.ref.mul(expJ(y0.neg()))).sub(1));
  return y1.ref.add(x.mul(expJ(y1.neg()))).sub(1);
}

export function softmaxJ(x: Arr, axis = -1): Arr {
  const e = expJ(x.ref.sub(lax.stopGradient(x.max(axis, { keepdims: true }))));
  return e.ref.div(e.sum(axis, { keepdims: true }));
}

export function logSoftmaxJ(x: Arr, axis = -1): Arr {
  const shifted = x.ref.sub(lax.stopGradient(x.max(axis, { keepdims: true })));
  return shifted.ref.sub(logJ(expJ(shifted).sum(axis, { keepdims: true })));
}

export function swigluJ(gate: Arr, up: Arr): Arr {
  if (gate.dtype !== np.float64) return nn.silu(gate).mul(up);
  return gate.ref.div(expJ(gate.neg()).add(1)).mul(up);
}

export function siluJ(x: Arr): Arr {
  if (x.dtype !== np.float64) return nn.silu(x);
  return x.ref.div(expJ(x.neg()).add(1));
}

export function sigmoidJ(x: Arr): Arr {
  return np.reciprocal(expJ(x.neg()).add(1));
}

/** log(1 + e^x), without overflow for large x. */
export function softplusJ(x: Arr): Arr {
  return np.maximum(x.ref, 0).add(logJ(expJ(np.abs(x).neg()).add(1)));
}

/** x / sqrt(sum(x^2) + eps) over the last axis (eps inside the root, as Hugging Face's l2norm). */
export function l2NormJ(x: Arr, eps: number): Arr {
  const sumSquare = np.square(x.ref).sum(-1, { keepdims: true });
  return x.mul(np.reciprocal(np.sqrt(sumSquare.add(exactJ(eps, x)))));
}

/** Rotary over the first `rotaryDim` of each head (Qwen3.5's partial rotary); the rest passes. */
export function partialRopeJ(
  x: Arr,
  cos: Arr,
  sin: Arr,
  style: DecoderConfig['ropeStyle'],
  rotaryDim: number,
): Arr {
  const headDim = x.shape[x.shape.length - 1] ?? 0;
  if (rotaryDim >= headDim) return ropeJ(x, cos, sin, style);
  const keep = x.shape.slice(0, -1).map((): [] => []);
  const rotated = ropeJ(x.ref.slice(...keep, [0, rotaryDim]), cos, sin, style);
  return np.concatenate([rotated, x.slice(...keep, [rotaryDim, headDim])], -1);
}
