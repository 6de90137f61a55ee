// The decoder's layers as jax-js ops, shared by the jitted decode step and the training forward.
// jax-js is reference-counted: every function here consumes its array arguments (use `.ref` to
// keep one), exactly like jax-js's own functions.
import { lax, nn, numpy as np } from '@jax-js/jax';
import type { DecoderConfig } from '../loading/model-config.ts';

type Arr = np.Array;

/** x * w / rms(x) over the last axis. */
export function rmsNormJ(x: Arr, weight: Arr, eps: number): Arr {
  const meanSquare = np.square(x.ref).mean(-1, { keepdims: true });
  return x.mul(np.reciprocal(np.sqrt(meanSquare.add(eps)))).mul(weight);
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

export function expJ(x: Arr): Arr {
  if (x.dtype !== np.float64) return np.exp(x);
  // Below -740 exp is 0 in float64; clamping keeps masked scores (-1e30) from overflowing r.
  const clamped = np.maximum(x, -740);
  const n = np.round(clamped.ref.div(Math.fround(Math.LN2)));
  let r = clamped;
  for (const part of LN2_PARTS) r = r.sub(n.ref.mul(part));
  let p = np.onesLike(r.ref);
  for (let i = 18; i >= 1; i--) p = p.mul(r.ref).div(i).add(1);
  r.dispose();
  return p.mul(np.exp2(n));
}

export function logJ(x: Arr): Arr {
  if (x.dtype !== np.float64) return np.log(x);
  const y0 = lax.stopGradient(np.log(x.ref));
  return y0.ref.add(x.mul(expJ(y0.neg()))).sub(1);
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
