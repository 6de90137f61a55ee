// The decoder's weights on a jax-js device, shared by the jitted decode step and the training
// forward: linears transposed to [in, out] once on the host, a layer's attention or Gated DeltaNet
// parameters under the keys jax-js flattens in insertion order (optimizer states follow it).
import { numpy as np } from '@jax-js/jax';
import { EngineError } from '../errors.ts';
import type { DeltaNetParams } from './jax-delta-net.ts';
import { float32Of } from '../loading/bf16.ts';
import { deltaNetDims } from '../loading/model-config.ts';
import {
  linearOf,
  linearShape,
  type DecoderModel,
  type LayerWeights,
  type LinearName,
} from '../loading/weights.ts';

type Arr = np.Array;

/**
 * Weights on the device; linears transposed to [in, out] so x @ W needs no transpose. A layer has
 * attention's linears (wq..wo) or, in Qwen3.5's linear-attention layers, the Gated DeltaNet's.
 */
export interface JaxLayer {
  attnNorm: Arr;
  wq?: Arr;
  wk?: Arr;
  wv?: Arr;
  wo?: Arr;
  bq?: Arr;
  bk?: Arr;
  bv?: Arr;
  qNorm?: Arr;
  kNorm?: Arr;
  inQkv?: Arr;
  inZ?: Arr;
  inB?: Arr;
  inA?: Arr;
  out?: Arr;
  /** [convDim, kernel] */
  conv?: Arr;
  aLog?: Arr;
  dtBias?: Arr;
  /** The gated RMSNorm's weight (one value head). */
  deltaNorm?: Arr;
  ffnNorm: Arr;
  w1: Arr;
  w2: Arr;
  w3: Arr;
}

/** Linear `name` of a layer ([in, out]); a named error where the layer has none. */
export function weightOf(layer: JaxLayer, name: LinearName): Arr {
  const w = layer[name];
  if (!w) throw new EngineError(`this layer has no '${name}' linear`);
  return w;
}

/**
 * The Gated DeltaNet parameters of a linear-attention layer, as the jax-js core reads them (the
 * layer's own arrays: a forward pass consumes its weights).
 */
export function deltaNetParamsOf(layer: JaxLayer): DeltaNetParams | null {
  const { conv, aLog, dtBias, deltaNorm } = layer;
  if (!conv || !aLog || !dtBias || !deltaNorm) return null;
  return { conv, aLog, dtBias, norm: deltaNorm };
}

export interface JaxWeights {
  tokenEmbedding: Arr;
  layers: JaxLayer[];
  finalNorm: Arr;
  /** [dim, vocab] */
  lmHead: Arr;
}

export function toDevice(a: Float32Array, shape: number[], dtype: np.DType = np.float32): Arr {
  // Weights never live in shared memory; the narrower type is what jax-js asks for.
  const array = np.array(a as Float32Array<ArrayBuffer>, { shape });
  return dtype === np.float32 ? array : array.astype(dtype);
}

/** Uploads `weights` with each linear as [in, out] (float64 for gradient checks). */
export function uploadWeights(model: DecoderModel, dtype: np.DType = np.float32): JaxWeights {
  const { config: c, weights: w } = model;
  // Transposed on the host, so the device holds contiguous [in, out] arrays (a transposed view
  // would be re-laid-out by every kernel that reads it).
  const transposed = (a: Float32Array, out: number, inp: number): Arr => {
    const t = new Float32Array(a.length);
    for (let o = 0; o < out; o++) {
      for (let i = 0; i < inp; i++) t[i * out + o] = a[o * inp + i] ?? 0;
    }
    return toDevice(t, [inp, out], dtype);
  };
  const optional = (key: string, a: Float32Array | null): Record<string, Arr> =>
    a ? { [key]: toDevice(a, [a.length], dtype) } : {};
  const linear = (l: LayerWeights, name: LinearName): Arr => {
    const [out, inp] = linearShape(c, name);
    return transposed(float32Of(linearOf(l, name)), out, inp);
  };
  // Keys in the order jax-js flattens them (insertion order), which optimizer states follow.
  const layer = (l: LayerWeights): JaxLayer => {
    const mlp = () => ({
      ffnNorm: toDevice(l.ffnNorm, [c.dim], dtype),
      w1: linear(l, 'w1'),
      w2: linear(l, 'w2'),
      w3: linear(l, 'w3'),
    });
    const attnNorm = toDevice(l.attnNorm, [c.dim], dtype);
    const d = l.deltaNet;
    if (d && c.hybrid) {
      return {
        attnNorm,
        inQkv: linear(l, 'inQkv'),
        inZ: linear(l, 'inZ'),
        inB: linear(l, 'inB'),
        inA: linear(l, 'inA'),
        out: linear(l, 'out'),
        conv: toDevice(d.conv, [deltaNetDims(c.hybrid).convDim, c.hybrid.convKernel], dtype),
        aLog: toDevice(d.aLog, [d.aLog.length], dtype),
        dtBias: toDevice(d.dtBias, [d.dtBias.length], dtype),
        deltaNorm: toDevice(d.norm, [d.norm.length], dtype),
        ...mlp(),
      };
    }
    return {
      attnNorm,
      wq: linear(l, 'wq'),
      wk: linear(l, 'wk'),
      wv: linear(l, 'wv'),
      wo: linear(l, 'wo'),
      ...optional('bq', l.bq),
      ...optional('bk', l.bk),
      ...optional('bv', l.bv),
      ...optional('qNorm', l.qNorm),
      ...optional('kNorm', l.kNorm),
      ...mlp(),
    };
  };
  return {
    tokenEmbedding: toDevice(float32Of(w.tokenEmbedding), [c.vocabSize, c.dim], dtype),
    layers: w.layers.map(layer),
    finalNorm: toDevice(w.finalNorm, [c.dim], dtype),
    lmHead: transposed(float32Of(w.lmHead), c.vocabSize, c.dim),
  };
}

/** x @ w (+ b) */
export function linearJ(x: Arr, w: Arr, b: Arr | undefined): Arr {
  const y = np.matmul(x, w);
  return b ? y.add(b) : y;
}
