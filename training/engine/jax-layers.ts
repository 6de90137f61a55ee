// The decoder's layers as jax-js ops, shared by the jitted decode step and the training forward.
// jax-js is reference-counted: every function here consumes its array arguments (use `.ref` to
// keep one), exactly like jax-js's own functions.
import { nn, numpy as np } from '@jax-js/jax';
import type { DecoderConfig } from './model-config.ts';

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

export function swigluJ(gate: Arr, up: Arr): Arr {
  return nn.silu(gate).mul(up);
}
