// One position of a Qwen3.5 Gated DeltaNet layer on typed arrays, after its input projections: the
// causal depthwise conv1d over [q k v] with its state, SiLU, L2-normalised q and k, the gated delta
// rule as Hugging Face's torch_recurrent_gated_delta_rule has it, the gated RMSNorm with z.
// State stays float32 (as Hugging Face keeps it); sums run in doubles.
import type { HybridConfig } from '../loading/model-config.ts';
import { deltaNetDims } from '../loading/model-config.ts';
import type { DeltaNetWeights } from '../loading/weights.ts';

/** A sequence's state in one linear-attention layer. */
export interface DeltaNetState {
  /** The last kernel - 1 rows of conv input, oldest first: [(kernel - 1) * convDim]. */
  conv: Float32Array;
  /** Per value head, [keyHeadDim, valueHeadDim]: [valueHeads * dk * dv]. */
  recurrent: Float32Array;
}

export function newDeltaNetState(h: HybridConfig): DeltaNetState {
  const { convDim } = deltaNetDims(h);
  return {
    conv: new Float32Array((h.convKernel - 1) * convDim),
    recurrent: new Float32Array(h.linearValueHeads * h.linearKeyHeadDim * h.linearValueHeadDim),
  };
}

export function resetDeltaNetState(state: DeltaNetState): void {
  state.conv.fill(0);
  state.recurrent.fill(0);
}

/** Work arrays for one position, allocated once per decoder. */
export interface DeltaNetScratch {
  mixed: Float32Array;
  delta: Float64Array;
  sk: Float64Array;
  sq: Float64Array;
}

export function deltaNetScratch(h: HybridConfig): DeltaNetScratch {
  return {
    mixed: new Float32Array(deltaNetDims(h).convDim),
    delta: new Float64Array(h.linearValueHeadDim),
    sk: new Float64Array(h.linearValueHeadDim),
    sq: new Float64Array(h.linearValueHeadDim),
  };
}

const silu = (x: number): number => x / (1 + Math.exp(-x));
const softplus = (x: number): number => (x > 20 ? x : Math.log1p(Math.exp(x)));

/**
 * Advances `state` by one position. `qkv` (convDim), `z` (valueDim), `b` and `a` (valueHeads) are
 * this position's projections; `out` (valueDim) receives the normed, gated core output.
 */
export function deltaNetPosition(
  h: HybridConfig,
  w: DeltaNetWeights,
  state: DeltaNetState,
  scratch: DeltaNetScratch,
  input: { qkv: Float32Array; z: Float32Array; b: Float32Array; a: Float32Array },
  out: Float32Array,
  eps: number,
): void {
  const { keyDim, convDim } = deltaNetDims(h);
  const K = h.convKernel;
  const conv = state.conv;
  const mixed = scratch.mixed;
  const { qkv } = input;
  // Causal conv1d: output c reads the K - 1 previous inputs of channel c and this one.
  for (let c = 0; c < convDim; c++) {
    const wo = c * K;
    let s = (w.conv[wo + K - 1] ?? 0) * (qkv[c] ?? 0);
    for (let j = 0; j < K - 1; j++) s += (w.conv[wo + j] ?? 0) * (conv[j * convDim + c] ?? 0);
    mixed[c] = silu(s);
  }
  if (K > 1) {
    conv.copyWithin(0, convDim);
    conv.set(qkv.subarray(0, convDim), (K - 2) * convDim);
  }
  const nk = h.linearKeyHeads;
  const dk = h.linearKeyHeadDim;
  const dv = h.linearValueHeadDim;
  // L2-normalise each key head's q and k (eps inside the root, as Hugging Face's l2norm).
  const qScale = 1 / Math.sqrt(dk);
  for (let kh = 0; kh < nk; kh++) {
    for (const base of [kh * dk, keyDim + kh * dk]) {
      let ss = 0;
      for (let i = 0; i < dk; i++) ss += (mixed[base + i] ?? 0) ** 2;
      const r = (1 / Math.sqrt(ss + 1e-6)) * (base < keyDim ? qScale : 1);
      for (let i = 0; i < dk; i++) mixed[base + i] = (mixed[base + i] ?? 0) * r;
    }
  }
  const group = h.linearValueHeads / nk;
  const S = state.recurrent;
  const { delta, sk, sq } = scratch;
  for (let vh = 0; vh < h.linearValueHeads; vh++) {
    const kh = Math.floor(vh / group);
    const qo = kh * dk;
    const ko = keyDim + kh * dk;
    const vo = 2 * keyDim + vh * dv;
    const so = vh * dk * dv;
    const beta = 1 / (1 + Math.exp(-(input.b[vh] ?? 0)));
    const g = -Math.exp(w.aLog[vh] ?? 0) * softplus((input.a[vh] ?? 0) + (w.dtBias[vh] ?? 0));
    const decay = Math.exp(g);
    // With S' = e^g S: delta = beta (v - S'^T k); S_new = S' + k delta^T; o = S_new^T q
    // = S'^T q + delta (k . q). One pass reads S for both products, one writes it.
    let kq = 0;
    sk.fill(0);
    sq.fill(0);
    for (let i = 0; i < dk; i++) {
      const ki = mixed[ko + i] ?? 0;
      const qi = mixed[qo + i] ?? 0;
      kq += ki * qi;
      const row = so + i * dv;
      for (let j = 0; j < dv; j++) {
        const sij = S[row + j] ?? 0;
        sk[j] = (sk[j] ?? 0) + sij * ki;
        sq[j] = (sq[j] ?? 0) + sij * qi;
      }
    }
    for (let j = 0; j < dv; j++) {
      const d = beta * ((mixed[vo + j] ?? 0) - decay * (sk[j] ?? 0));
      delta[j] = d;
      out[vh * dv + j] = decay * (sq[j] ?? 0) + d * kq;
    }
    for (let i = 0; i < dk; i++) {
      const ki = mixed[ko + i] ?? 0;
      const row = so + i * dv;
      for (let j = 0; j < dv; j++) S[row + j] = decay * (S[row + j] ?? 0) + ki * (delta[j] ?? 0);
    }
    // Gated RMSNorm over the head: weight * x / rms(x) * silu(z).
    let ss = 0;
    for (let j = 0; j < dv; j++) ss += (out[vh * dv + j] ?? 0) ** 2;
    const r = 1 / Math.sqrt(ss / dv + eps);
    for (let j = 0; j < dv; j++) {
      const o = vh * dv + j;
      out[o] = (out[o] ?? 0) * r * (w.norm[j] ?? 0) * silu(input.z[o] ?? 0);
    }
  }
}
