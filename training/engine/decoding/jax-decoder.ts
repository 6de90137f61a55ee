// Decoding on jax-js (wasm or WebGPU): one jitted step for all KV cache slots at once, with fixed
// shapes so it compiles once. The cache is [batch, maxSeqLen, kvDim] per layer, written by a
// one-hot blend at each row's position; rows not being decoded are masked out of the write. A
// Gated DeltaNet layer holds its conv and recurrent state there instead, blended per row.
import { jit, numpy as np, tree, type OwnedFunction } from '@jax-js/jax';
import type { BackendName, DecodeInput, Decoder, DecoderOptions } from './decoder.ts';
import { DEFAULT_MAX_SEQ_LEN } from './decoder.ts';
import { GenerationError } from '../errors.ts';
import { deltaNetStepJ, stateDtype } from '../kernels/jax-delta-net.ts';
import {
  deltaNetParamsOf,
  linearJ,
  toDevice,
  uploadWeights,
  weightOf,
  type JaxWeights,
} from '../kernels/jax-weights.ts';
import { partialRopeJ, rmsNormJ, sigmoidJ, swigluJ } from '../kernels/jax-layers.ts';
import { deltaNetDims, isLinearLayer, type DecoderConfig } from '../loading/model-config.ts';
import { ropeTables } from '../kernels/rope.ts';
import type { DecoderModel } from '../loading/weights.ts';

type Arr = np.Array;

interface StepInputs {
  tokens: Arr;
  positions: Arr;
  /** 1 for rows decoded this step, 0 for rows whose cache must stay as it is. */
  active: Arr;
  cos: Arr;
  sin: Arr;
  /**
   * Per layer: the KV cache's keys and values [batch, maxSeqLen, kvDim], or in a Gated DeltaNet
   * layer its conv state [batch, kernel - 1, convDim] and recurrent state [batch, nv, dk, dv].
   */
  keys: Arr[];
  values: Arr[];
}

/** Each row of a layer's state: the new one where the row is active, else the old one. */
function blendRows(old: Arr, fresh: Arr, active: Arr): Arr {
  const shape = [active.shape[0] ?? 1, ...old.shape.slice(1).map(() => 1)];
  const a = (active.dtype === old.dtype ? active : active.astype(old.dtype)).reshape(shape);
  return old.mul(np.subtract(1, a.ref)).add(fresh.mul(a));
}

function decodeStep(
  c: DecoderConfig,
  maxSeqLen: number,
  w: JaxWeights,
  s: StepInputs,
): [Arr, Arr[], Arr[]] {
  const { nHeads, nKvHeads, headDim } = c;
  const group = nHeads / nKvHeads;
  const batch = s.tokens.shape[0] ?? 1;
  const half = (c.hybrid?.rotaryDim ?? headDim) / 2;
  let x = np.take(w.tokenEmbedding, s.tokens, 0);
  // Row b writes its k/v at positions[b] (when active) and attends to 0..positions[b].
  const steps = np.arange(maxSeqLen).astype(np.int32).reshape([1, maxSeqLen]);
  const cos = np.take(s.cos, s.positions.ref, 0).reshape([batch, 1, half]);
  const sin = np.take(s.sin, s.positions.ref, 0).reshape([batch, 1, half]);
  const fresh = np.equal(s.positions.ref, 0).astype(x.dtype);
  const pos = s.positions.reshape([batch, 1]);
  const write = np
    .equal(steps.ref, pos.ref)
    .astype(x.dtype)
    .mul(s.active.ref.reshape([batch, 1]))
    .reshape([batch, maxSeqLen, 1]);
  const visible = np.lessEqual(steps, pos).reshape([batch, 1, 1, maxSeqLen]);
  const keys: Arr[] = [];
  const values: Arr[] = [];
  w.layers.forEach((lw, l) => {
    const h = rmsNormJ(x.ref, lw.attnNorm, c.normEps);
    const params = deltaNetParamsOf(lw);
    const cacheK = s.keys[l] ?? np.zeros([1]);
    const cacheV = s.values[l] ?? np.zeros([1]);
    if (params && c.hybrid) {
      const [core, state] = deltaNetStepJ(
        c.hybrid,
        params,
        {
          qkv: linearJ(h.ref, weightOf(lw, 'inQkv'), undefined),
          z: linearJ(h.ref, weightOf(lw, 'inZ'), undefined),
          b: linearJ(h.ref, weightOf(lw, 'inB'), undefined),
          a: linearJ(h, weightOf(lw, 'inA'), undefined),
        },
        { conv: cacheK.ref, recurrent: cacheV.ref },
        fresh.ref,
        c.normEps,
      );
      keys.push(blendRows(cacheK, state.conv, s.active.ref));
      values.push(blendRows(cacheV, state.recurrent, s.active.ref));
      x = x.add(linearJ(core, weightOf(lw, 'out'), undefined));
    } else {
      const qDim = nHeads * headDim;
      let q = linearJ(h.ref, weightOf(lw, 'wq'), lw.bq);
      let gate: Arr | null = null;
      if (c.hybrid) {
        // q_proj writes each head's query, then its output gate.
        const qg = q.reshape([batch, nHeads, 2 * headDim]);
        gate = qg.ref.slice([], [], [headDim, 2 * headDim]).reshape([batch, qDim]);
        q = qg.slice([], [], [0, headDim]);
      }
      q = q.reshape([batch, nHeads, headDim]);
      let k = linearJ(h.ref, weightOf(lw, 'wk'), lw.bk).reshape([batch, nKvHeads, headDim]);
      const v = linearJ(h, weightOf(lw, 'wv'), lw.bv).reshape([batch, 1, nKvHeads * headDim]);
      if (lw.qNorm && lw.kNorm) {
        q = rmsNormJ(q, lw.qNorm, c.normEps);
        k = rmsNormJ(k, lw.kNorm, c.normEps);
      }
      const rotary = 2 * half;
      q = partialRopeJ(q, cos.ref, sin.ref, c.ropeStyle, rotary);
      k = partialRopeJ(k, cos.ref, sin.ref, c.ropeStyle, rotary).reshape([
        batch,
        1,
        nKvHeads * headDim,
      ]);
      const blend = (cache: Arr, fresh: Arr): Arr =>
        cache.mul(np.subtract(1, write.ref)).add(fresh.mul(write.ref));
      const kc = blend(cacheK, k);
      const vc = blend(cacheV, v);
      keys.push(kc.ref);
      values.push(vc.ref);
      const qg = q.reshape([batch, nKvHeads, group, headDim]);
      const kh = kc.reshape([batch, maxSeqLen, nKvHeads, headDim]);
      const vh = vc.reshape([batch, maxSeqLen, nKvHeads, headDim]);
      const scores = np.einsum('bkgd,bskd->bkgs', qg, kh).mul(1 / Math.sqrt(headDim));
      const masked = np.where(visible.ref, scores, -1e30);
      const probs = softmaxLast(masked);
      let att = np.einsum('bkgs,bskd->bkgd', probs, vh).reshape([batch, qDim]);
      if (gate) att = att.mul(sigmoidJ(gate));
      x = x.add(linearJ(att, weightOf(lw, 'wo'), undefined));
    }
    const h2 = rmsNormJ(x.ref, lw.ffnNorm, c.normEps);
    const ff = swigluJ(linearJ(h2.ref, lw.w1, undefined), linearJ(h2, lw.w3, undefined));
    x = x.add(linearJ(ff, lw.w2, undefined));
  });
  write.dispose();
  visible.dispose();
  cos.dispose();
  sin.dispose();
  fresh.dispose();
  s.active.dispose();
  const logits = linearJ(rmsNormJ(x, w.finalNorm, c.normEps), w.lmHead, undefined);
  return [logits, keys, values];
}

/** A layer's two state arrays per decoder: the KV cache, or a DeltaNet layer's conv and S. */
function layerStateShapes(
  c: DecoderConfig,
  l: number,
  batch: number,
  maxSeqLen: number,
): [number[], number[]] {
  const h = c.hybrid;
  if (h?.layerTypes[l] === 'linear_attention') {
    return [
      [batch, h.convKernel - 1, deltaNetDims(h).convDim],
      [batch, h.linearValueHeads, h.linearKeyHeadDim, h.linearValueHeadDim],
    ];
  }
  const cache = [batch, maxSeqLen, c.nKvHeads * c.headDim];
  return [cache, cache];
}

function softmaxLast(x: Arr): Arr {
  const shifted = x.ref.sub(x.max(-1, { keepdims: true }));
  const e = np.exp(shifted);
  return e.ref.div(e.sum(-1, { keepdims: true }));
}

export class JaxDecoder implements Decoder {
  readonly config: DecoderConfig;
  readonly backend: BackendName;
  readonly implementation: string;
  readonly notes: string[] = [];
  readonly maxBatch: number;
  readonly maxChunk = 1;
  readonly maxSeqLen: number;
  readonly #weights: JaxWeights;
  readonly #cos: Arr;
  readonly #sin: Arr;
  #keys: Arr[];
  #values: Arr[];
  readonly #step: OwnedFunction<(w: JaxWeights, s: StepInputs) => [Arr, Arr[], Arr[]]>;
  #disposed = false;

  /**
   * `shaderF16`: whether the WebGPU device has the shader-f16 feature; f16 falls back to f32 (with
   * a note) without it, and on wasm.
   */
  constructor(
    model: DecoderModel,
    backend: BackendName,
    options: DecoderOptions & { shaderF16?: boolean } = {},
  ) {
    const c = model.config;
    this.config = c;
    this.backend = backend;
    let f16 = options.precision === 'f16';
    if (f16 && !(backend === 'webgpu' && options.shaderF16 === true)) {
      f16 = false;
      this.notes.push(
        backend === 'webgpu'
          ? 'f16 was asked for but this WebGPU device has no shader-f16 (SwiftShader has none): computing in f32'
          : 'f16 was asked for; the wasm backend computes in f32',
      );
    }
    const dtype = f16 ? np.float16 : np.float32;
    this.implementation = `jax-js ${backend} ${f16 ? 'f16' : 'f32'}, jitted step`;
    this.maxBatch = options.maxBatch ?? 1;
    this.maxSeqLen = Math.min(options.maxSeqLen ?? DEFAULT_MAX_SEQ_LEN, c.maxSeqLen);
    this.#weights = uploadWeights(model, dtype);
    const tables = ropeTables(c, this.maxSeqLen);
    this.#cos = toDevice(Float32Array.from(tables.cos), [this.maxSeqLen, tables.half], dtype);
    this.#sin = toDevice(Float32Array.from(tables.sin), [this.maxSeqLen, tables.half], dtype);
    this.#keys = [];
    this.#values = [];
    for (let l = 0; l < c.nLayers; l++) {
      const [keyShape, valueShape] = layerStateShapes(c, l, this.maxBatch, this.maxSeqLen);
      // A DeltaNet layer's recurrent state stays float32 when the weights are f16.
      const valueType = isLinearLayer(c, l) ? stateDtype(dtype) : dtype;
      this.#keys.push(np.zeros(keyShape, { dtype }));
      this.#values.push(np.zeros(valueShape, { dtype: valueType }));
    }
    const maxSeqLen = this.maxSeqLen;
    this.#step = jit((w: JaxWeights, s: StepInputs) => decodeStep(c, maxSeqLen, w, s));
  }

  async step(inputs: readonly DecodeInput[]): Promise<Float32Array> {
    if (this.#disposed) throw new GenerationError('this decoder was disposed');
    const rows = this.maxBatch;
    const tokens = new Int32Array(rows);
    const positions = new Int32Array(rows);
    const active = new Float32Array(rows);
    for (const input of inputs) {
      if (!(input.slot >= 0 && input.slot < rows)) {
        throw new GenerationError(`slot ${input.slot} does not exist (this decoder has ${rows})`);
      }
      if (!(input.pos >= 0 && input.pos < this.maxSeqLen)) {
        throw new GenerationError(
          `position ${input.pos} is past the context of ${this.maxSeqLen} tokens; shorten the prompt or the steps`,
        );
      }
      if (!(input.token >= 0 && input.token < this.config.vocabSize)) {
        throw new GenerationError(`token ${input.token} is outside the vocabulary`);
      }
      tokens[input.slot] = input.token;
      positions[input.slot] = input.pos;
      active[input.slot] = 1;
    }
    const [logits, keys, values] = this.#step(tree.ref(this.#weights), {
      tokens: np.array(tokens, { dtype: np.int32 }),
      positions: np.array(positions, { dtype: np.int32 }),
      active: np.array(active).astype(this.#cos.dtype),
      cos: this.#cos.ref,
      sin: this.#sin.ref,
      keys: this.#keys,
      values: this.#values,
    });
    this.#keys = keys;
    this.#values = values;
    const all = Float32Array.from((await logits.data()) as ArrayLike<number>);
    const vocab = this.config.vocabSize;
    const out = new Float32Array(inputs.length * vocab);
    inputs.forEach((input, i) => {
      out.set(all.subarray(input.slot * vocab, (input.slot + 1) * vocab), i * vocab);
    });
    return out;
  }

  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    tree.dispose(this.#weights);
    tree.dispose([this.#cos, this.#sin, ...this.#keys, ...this.#values]);
    this.#step.dispose();
  }
}
