// The full-sequence forward pass on jax-js for training: causal attention over [batch, T] tokens,
// LoRA deltas on the targeted linears, and per-token log-probabilities of each next token. Every
// function consumes its array arguments (jax-js ownership); callers pass `.ref`s to keep theirs.
import { nn, numpy as np } from '@jax-js/jax';
import type { JaxLayer, JaxWeights } from '../kernels/jax-weights.ts';
import { deltaNetParamsOf, linearJ, weightOf } from '../kernels/jax-weights.ts';
import { deltaNetSequenceJ } from '../kernels/jax-delta-net.ts';
import {
  divSqrtJ,
  expJ,
  logSoftmaxJ,
  partialRopeJ,
  rmsNormJ,
  sigmoidJ,
  softmaxJ,
  swigluJ,
} from '../kernels/jax-layers.ts';
import type { LoraLayer, LoraParams } from './lora.ts';
import type { DecoderConfig } from '../loading/model-config.ts';
import type { LinearName } from '../loading/weights.ts';

type Arr = np.Array;

export interface SequenceInputs {
  /** int32 [batch, T] */
  tokens: Arr;
  /** [T, rotaryDim/2] rotary tables for positions 0..T-1 */
  cos: Arr;
  sin: Arr;
}

/**
 * `y` unchanged (2y/2 is exact), but its cotangent in the backward pass is written to memory once:
 * the transpose of the broadcast is a sum, which ends a kernel. Without it, jax-js fuses the
 * elementwise chain that makes the cotangent (SwiGLU's or rotary's derivative) into the next
 * matmul's reduction and recomputes it for every output column: 3-4x that matmul's time.
 */
function materializedCotangent(y: Arr): Arr {
  return np
    .broadcastTo(y.reshape([1, ...y.shape]), [2, ...y.shape])
    .sum(0)
    .mul(0.5);
}

/**
 * The linears whose outputs feed an elementwise chain (rotary, SwiGLU, the DeltaNet's conv and
 * gates) before the next matmul.
 */
const chained: ReadonlySet<LinearName> = new Set<LinearName>([
  'wq',
  'wk',
  'w1',
  'w3',
  'inQkv',
  'inZ',
]);

function adapted(
  x: Arr,
  layer: JaxLayer,
  lora: LoraLayer | undefined,
  name: LinearName,
  bias: Arr | undefined,
  scale: number,
): Arr {
  const pair = lora?.[name];
  const y = linearJ(x.ref, weightOf(layer, name), bias);
  if (!pair) {
    x.dispose();
    // An adapted output has several consumers in the backward pass, so it is written anyway.
    return chained.has(name) ? materializedCotangent(y) : y;
  }
  return y.add(np.matmul(np.matmul(x, pair.a), pair.b).mul(scale));
}

/** Options of the forward pass that do not change its result. */
export interface SequenceOptions {
  /** Positions per chunk of the Gated DeltaNet's chunked delta rule (default 16). */
  deltaChunk?: number;
}

/** Logits [batch, T, vocab]. */
export function sequenceLogits(
  c: DecoderConfig,
  w: JaxWeights,
  lora: LoraParams | null,
  loraScale: number,
  s: SequenceInputs,
  options: SequenceOptions = {},
): Arr {
  const [batch = 1, T = 1] = s.tokens.shape;
  // One-hot products instead of gathers: jax-js cannot differentiate a gather inside jit.
  let x = np.matmul(
    nn.oneHot(s.tokens, c.vocabSize).astype(w.tokenEmbedding.dtype),
    w.tokenEmbedding,
  );
  const half = (c.hybrid?.rotaryDim ?? c.headDim) / 2;
  const cos = s.cos.reshape([T, 1, half]);
  const sin = s.sin.reshape([T, 1, half]);
  // mask[t, s] = s <= t
  const rows = np.arange(T).astype(np.int32);
  const causal = np.lessEqual(rows.ref.reshape([1, T]), rows.reshape([T, 1])).reshape([1, 1, T, T]);
  w.layers.forEach((layer, l) => {
    const ad = lora?.layers[l];
    const linear = (h: Arr, name: LinearName, bias?: Arr): Arr =>
      adapted(h, layer, ad, name, bias, loraScale);
    const h = rmsNormJ(x.ref, layer.attnNorm, c.normEps);
    const params = deltaNetParamsOf(layer);
    if (params && c.hybrid) {
      const core = deltaNetSequenceJ(
        c.hybrid,
        params,
        {
          qkv: linear(h.ref, 'inQkv'),
          z: linear(h.ref, 'inZ'),
          b: linear(h.ref, 'inB'),
          a: linear(h, 'inA'),
        },
        c.normEps,
        options.deltaChunk,
      );
      x = x.add(linear(core, 'out'));
    } else {
      x = x.add(attention(c, layer, linear, h, cos.ref, sin.ref, causal.ref, batch, T));
    }
    const h2 = rmsNormJ(x.ref, layer.ffnNorm, c.normEps);
    const gate = linear(h2.ref, 'w1');
    const up = linear(h2, 'w3');
    x = x.add(linear(swigluJ(gate, up), 'w2'));
  });
  cos.dispose();
  sin.dispose();
  causal.dispose();
  return linearJ(rmsNormJ(x, w.finalNorm, c.normEps), w.lmHead, undefined);
}

/** Causal self-attention of one layer, output-gated in Qwen3.5's full-attention layers. */
function attention(
  c: DecoderConfig,
  layer: JaxLayer,
  linear: (h: Arr, name: LinearName, bias?: Arr) => Arr,
  h: Arr,
  cos: Arr,
  sin: Arr,
  causal: Arr,
  batch: number,
  T: number,
): Arr {
  const { nHeads, nKvHeads, headDim } = c;
  const group = nHeads / nKvHeads;
  const qDim = nHeads * headDim;
  let q = linear(h.ref, 'wq', layer.bq);
  let gate: Arr | null = null;
  if (c.hybrid) {
    // q_proj writes each head's query, then its output gate.
    const qg = q.reshape([batch, T, nHeads, 2 * headDim]);
    gate = qg.ref.slice([], [], [], [headDim, 2 * headDim]).reshape([batch, T, qDim]);
    q = qg.slice([], [], [], [0, headDim]);
  }
  q = q.reshape([batch, T, nHeads, headDim]);
  let k = linear(h.ref, 'wk', layer.bk).reshape([batch, T, nKvHeads, headDim]);
  let v = linear(h, 'wv', layer.bv).reshape([batch, T, nKvHeads, headDim]);
  if (layer.qNorm && layer.kNorm) {
    q = rmsNormJ(q, layer.qNorm, c.normEps);
    k = rmsNormJ(k, layer.kNorm, c.normEps);
  }
  const rotary = c.hybrid?.rotaryDim ?? headDim;
  q = partialRopeJ(q, cos.ref, sin.ref, c.ropeStyle, rotary).transpose([0, 2, 1, 3]);
  k = partialRopeJ(k, cos, sin, c.ropeStyle, rotary).transpose([0, 2, 3, 1]);
  v = v.transpose([0, 2, 1, 3]);
  if (group > 1) {
    k = np.repeat(k, group, 1);
    v = np.repeat(v, group, 1);
  }
  const scores = divSqrtJ(np.matmul(q, k), headDim);
  const probs = softmaxJ(np.where(causal, scores, -1e30), -1);
  let att = np.matmul(probs, v).transpose([0, 2, 1, 3]).reshape([batch, T, qDim]);
  if (gate) att = att.mul(sigmoidJ(gate));
  return linear(att, 'wo');
}

/**
 * log p(tokens[:, t+1] | tokens[:, <=t]) for t = 0..T-2: [batch, T-1]. `targets` is
 * tokens[:, 1:] as int32 (passed separately so the caller slices once on the host).
 * `inverseTemperature` ([1]) scales the logits first: the distribution a sampler at that
 * temperature draws from (null: temperature 1).
 */
export function sequenceLogProbs(
  c: DecoderConfig,
  w: JaxWeights,
  lora: LoraParams | null,
  loraScale: number,
  s: SequenceInputs,
  targets: Arr,
  inverseTemperature: Arr | null = null,
  options: SequenceOptions = {},
): Arr {
  const logits = tempered(sequenceLogits(c, w, lora, loraScale, s, options), inverseTemperature);
  const [batch = 1, T = 1] = logits.shape;
  const logp = logSoftmaxJ(logits.slice([], [0, T - 1], []), -1);
  const pick = nn.oneHot(targets, c.vocabSize).astype(logp.dtype);
  return logp
    .mul(pick)
    .sum(-1)
    .reshape([batch, T - 1]);
}

/**
 * Per-token log-probs of the targets and the entropy of each predicted distribution: [batch, T-1]
 * each, at the temperature `inverseTemperature` gives (as sequenceLogProbs).
 */
export function sequenceStats(
  c: DecoderConfig,
  w: JaxWeights,
  lora: LoraParams | null,
  loraScale: number,
  s: SequenceInputs,
  targets: Arr,
  inverseTemperature: Arr | null = null,
  options: SequenceOptions = {},
): [Arr, Arr] {
  const logits = tempered(sequenceLogits(c, w, lora, loraScale, s, options), inverseTemperature);
  const [batch = 1, T = 1] = logits.shape;
  const logp = logSoftmaxJ(logits.slice([], [0, T - 1], []), -1);
  const pick = nn.oneHot(targets, c.vocabSize).astype(logp.dtype);
  const picked = logp.ref
    .mul(pick)
    .sum(-1)
    .reshape([batch, T - 1]);
  const entropy = expJ(logp.ref)
    .mul(logp)
    .sum(-1)
    .neg()
    .reshape([batch, T - 1]);
  return [picked, entropy];
}

function tempered(logits: Arr, inverseTemperature: Arr | null): Arr {
  return inverseTemperature ? logits.mul(inverseTemperature) : logits;
}
