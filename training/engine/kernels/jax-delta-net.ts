// Qwen3.5's Gated DeltaNet as jax-js ops, after the input projections and before out_proj: the
// causal depthwise conv1d, SiLU, L2-normalised q/k, beta and the decay, grouped value heads, the
// gated delta rule (chunked over a whole sequence for training, one position with its state for
// decoding) and the gated RMSNorm with z. Follows Hugging Face's modeling_qwen3_5.py
// (torch_chunk_gated_delta_rule, torch_recurrent_gated_delta_rule). Every function consumes its
// array arguments (jax-js ownership).
import { numpy as np } from '@jax-js/jax';
import { deltaNetDims, type HybridConfig } from '../loading/model-config.ts';
import { divSqrtJ, expJ, l2NormJ, rmsNormJ, sigmoidJ, siluJ, softplusJ } from './jax-layers.ts';

type Arr = np.Array;

/**
 * The delta rule and its state run in float32 whatever the weights' precision (float64 in
 * gradient checks), as Hugging Face's torch_*_gated_delta_rule cast to float32: an f16 state
 * would lose what the slow decay keeps over hundreds of positions.
 */
export function stateDtype(compute: np.DType): np.DType {
  return compute === np.float64 ? np.float64 : np.float32;
}

function as(x: Arr, dtype: np.DType): Arr {
  return x.dtype === dtype ? x : x.astype(dtype);
}

/** The per-layer parameters the core reads (the projections are the caller's, for LoRA). */
export interface DeltaNetParams {
  /** [convDim, kernel] */
  conv: Arr;
  aLog: Arr;
  dtBias: Arr;
  /** The gated norm's weight over one value head. */
  norm: Arr;
}

/** One layer's projections of x: qkv [..., convDim], z [..., valueDim], b and a [..., valueHeads]. */
export interface DeltaNetInputs {
  qkv: Arr;
  z: Arr;
  b: Arr;
  a: Arr;
}

/**
 * Splits the conv's output into L2-normed q (also scaled by dk^-1/2) and k, each repeated to the
 * value heads, and v; beta and the log-decay g from b and a. Leading axes are kept.
 */
function headsOf(
  h: HybridConfig,
  convOut: Arr,
  p: DeltaNetParams,
  b: Arr,
  a: Arr,
): { q: Arr; k: Arr; v: Arr; beta: Arr; g: Arr } {
  const { keyDim, convDim } = deltaNetDims(h);
  const state = stateDtype(convOut.dtype);
  const mixed = as(convOut, state);
  const lead = mixed.shape.slice(0, -1);
  const keep = lead.map((): [] => []);
  const nk = h.linearKeyHeads;
  const dk = h.linearKeyHeadDim;
  const group = h.linearValueHeads / nk;
  const split = (from: number, to: number, heads: number, d: number): Arr =>
    mixed.ref.slice(...keep, [from, to]).reshape([...lead, heads, d]);
  const grouped = (x: Arr): Arr => (group > 1 ? np.repeat(x, group, lead.length) : x);
  const q = grouped(divSqrtJ(l2NormJ(split(0, keyDim, nk, dk), 1e-6), dk));
  const k = grouped(l2NormJ(split(keyDim, 2 * keyDim, nk, dk), 1e-6));
  const v = split(2 * keyDim, convDim, h.linearValueHeads, h.linearValueHeadDim);
  mixed.dispose();
  const beta = sigmoidJ(as(b, state));
  const g = expJ(as(p.aLog, state))
    .neg()
    .mul(softplusJ(as(a, state).add(as(p.dtBias, state))));
  return { q, k, v, beta, g };
}

/** The gated RMSNorm over each value head: weight * x / rms(x) * silu(z), back in z's precision. */
function gatedNorm(h: HybridConfig, core: Arr, z: Arr, weight: Arr, eps: number): Arr {
  const shape = core.shape;
  const compute = z.dtype;
  const out = rmsNormJ(core, as(weight, core.dtype), eps).mul(
    siluJ(as(z.reshape(shape), core.dtype)),
  );
  const flat = out.reshape([...shape.slice(0, -2), h.linearValueHeads * h.linearValueHeadDim]);
  return as(flat, compute);
}

/**
 * A whole sequence: x's projections [batch, T, ...] -> the normed, gated core [batch, T, valueDim]
 * (out_proj is the caller's). The delta rule runs in chunks of `chunk` positions (the result is
 * the same for any chunk size; it trades the triangular solve's steps against the scan's).
 */
export function deltaNetSequenceJ(
  h: HybridConfig,
  p: DeltaNetParams,
  x: DeltaNetInputs,
  eps: number,
  chunk = 16,
): Arr {
  const [batch = 1, T = 1] = x.qkv.shape;
  const { convDim } = deltaNetDims(h);
  const K = h.convKernel;
  // Causal conv1d: position t reads inputs t-K+1..t (zeros before the start).
  const padded = np.concatenate(
    [np.zeros([batch, K - 1, convDim], { dtype: x.qkv.dtype }), x.qkv],
    1,
  );
  let conv: Arr | null = null;
  for (let j = 0; j < K; j++) {
    const term = padded.ref.slice([], [j, j + T], []).mul(p.conv.ref.slice([], j));
    conv = conv ? conv.add(term) : term;
  }
  padded.dispose();
  p.conv.dispose();
  const mixed = siluJ(conv ?? np.zeros([batch, T, convDim]));
  const { q, k, v, beta, g } = headsOf(h, mixed, p, x.b, x.a);
  // [batch, heads, T, d] as the chunked rule reads them.
  const core = chunkedDeltaRule(
    q.transpose([0, 2, 1, 3]),
    k.transpose([0, 2, 1, 3]),
    v.transpose([0, 2, 1, 3]),
    beta.transpose([0, 2, 1]),
    g.transpose([0, 2, 1]),
    chunk,
  ).transpose([0, 2, 1, 3]);
  return gatedNorm(h, core, x.z, p.norm, eps);
}

/**
 * torch_chunk_gated_delta_rule over [B, H, T, d] (q already scaled), from a zero state: within a
 * chunk the UT transform (I + L)^-1 by forward substitution, across chunks a scan of the state.
 */
function chunkedDeltaRule(q: Arr, k: Arr, v: Arr, beta: Arr, g: Arr, chunk: number): Arr {
  const [B = 1, H = 1, T = 1, dk = 1] = q.shape;
  const dv = v.shape[3] ?? 1;
  const C = Math.min(chunk, T);
  const n = Math.ceil(T / C);
  const pad = n * C - T;
  const dtype = q.dtype;
  const padT = (a: Arr): Arr => {
    if (pad === 0) return a;
    const shape = [...a.shape];
    shape[2] = pad;
    return np.concatenate([a, np.zeros(shape, { dtype })], 2);
  };
  const chunks = (a: Arr, d: number | null): Arr =>
    padT(a).reshape(d === null ? [B, H, n, C] : [B, H, n, C, d]);
  const qc = chunks(q, dk);
  const kc = chunks(k, dk);
  const vc = chunks(v, dv);
  const bc = chunks(beta, null).reshape([B, H, n, C, 1]);
  // Cumulative log-decay within each chunk: gc[r] = sum_{s <= r} g[s].
  const gc = np.cumsum(chunks(g, null), -1);
  const rows = np.arange(C).astype(np.int32);
  const lowerEq = np.lessEqual(rows.ref.reshape([1, C]), rows.reshape([C, 1]));
  // decay[r, s] = exp(gc[r] - gc[s]) for s <= r, else 0 (masked before exp: no overflow). It
  // zeroes every product above the diagonal, so queries never see later keys.
  const diff = gc.ref.reshape([B, H, n, C, 1]).sub(gc.ref.reshape([B, H, n, 1, C]));
  const decay = np.where(lowerEq.ref, expJ(np.where(lowerEq, diff, 0)), 0);
  const kBeta = kc.ref.mul(bc.ref);
  const vBeta = vc.mul(bc);
  // L[r, s] = beta_r (k_r . k_s) decay[r, s] for s < r; solve (I + L) X = [vBeta, kBeta e^gc]
  // (the substitution never reads L's diagonal).
  const L = np.matmul(kBeta.ref, kc.ref.transpose([0, 1, 2, 4, 3])).mul(decay.ref);
  const rhs = np.concatenate([vBeta, kBeta.mul(expJ(gc.ref).reshape([B, H, n, C, 1]))], -1);
  const solved = forwardSubstitute(L, rhs, C);
  const values = solved.ref.slice([], [], [], [], [0, dv]);
  const kCumDecay = solved.slice([], [], [], [], [dv, dv + dk]);
  // Within a chunk, queries see keys at or before them.
  const inner = np.matmul(qc.ref, kc.ref.transpose([0, 1, 2, 4, 3])).mul(decay);
  let S = np.zeros([B, H, dk, dv], { dtype });
  const outs: Arr[] = [];
  const at = (a: Arr, i: number): Arr => a.ref.slice([], [], i);
  for (let i = 0; i < n; i++) {
    const g_i = at(gc, i);
    const vNew = at(values, i).sub(np.matmul(at(kCumDecay, i), S.ref));
    const cross = np.matmul(at(qc, i).mul(expJ(g_i.ref).reshape([B, H, C, 1])), S.ref);
    outs.push(cross.add(np.matmul(at(inner, i), vNew.ref)));
    const last = g_i.ref.slice([], [], [C - 1, C]);
    const toEnd = expJ(last.ref.sub(g_i)).reshape([B, H, C, 1]);
    S = S.mul(expJ(last).reshape([B, H, 1, 1])).add(
      np.matmul(at(kc, i).mul(toEnd).transpose([0, 1, 3, 2]), vNew),
    );
  }
  disposeAll([qc, kc, gc, values, kCumDecay, inner, S]);
  const out = np.stack(outs, 2).reshape([B, H, n * C, dv]);
  return pad === 0 ? out : out.slice([], [], [0, T], []);
}

function disposeAll(arrays: Arr[]): void {
  for (const a of arrays) a.dispose();
}

/**
 * X with (I + L) X = rhs for strictly lower-triangular L [..., C, C], row by row:
 * X_r = rhs_r - sum_{s<r} L[r, s] X_s (the rows of X not yet solved are zero, so the sum can run
 * over all s).
 */
function forwardSubstitute(L: Arr, rhs: Arr, C: number): Arr {
  const lead = L.shape.slice(0, -2);
  const keep = lead.map((): [] => []);
  const rowMask = (r: number): Arr =>
    np.equal(np.arange(C).astype(np.int32), r).astype(rhs.dtype).reshape([C, 1]);
  let X = rhs.ref.mul(rowMask(0));
  for (let r = 1; r < C; r++) {
    const lRow = L.ref.slice(...keep, [r, r + 1], []);
    const xr = rhs.ref.slice(...keep, [r, r + 1], []).sub(np.matmul(lRow, X.ref));
    X = X.add(xr.mul(rowMask(r)));
  }
  L.dispose();
  rhs.dispose();
  return X;
}

/** One layer's state per decoder row: the conv's last kernel-1 inputs and the delta rule's S. */
export interface DeltaNetStateJ {
  /** [batch, kernel - 1, convDim] */
  conv: Arr;
  /** [batch, valueHeads, dk, dv] */
  recurrent: Arr;
}

/**
 * One position per row: projections [batch, ...] and the state -> the normed, gated core
 * [batch, valueDim] and the advanced state. `fresh` [batch] is 1 where a row starts a sequence
 * (its old state is ignored).
 */
export function deltaNetStepJ(
  h: HybridConfig,
  p: DeltaNetParams,
  x: DeltaNetInputs,
  state: DeltaNetStateJ,
  fresh: Arr,
  eps: number,
): [Arr, DeltaNetStateJ] {
  const batch = x.qkv.shape[0] ?? 1;
  const { convDim } = deltaNetDims(h);
  const K = h.convKernel;
  const keepOld = np.subtract(1, as(fresh, state.recurrent.dtype));
  const window = np.concatenate(
    [
      state.conv.mul(as(keepOld.ref, state.conv.dtype).reshape([batch, 1, 1])),
      x.qkv.reshape([batch, 1, convDim]),
    ],
    1,
  );
  // window [batch, K, convDim] . conv [convDim, K] summed over the kernel.
  const mixed = siluJ(window.ref.mul(p.conv.ref.transpose()).sum(1));
  p.conv.dispose();
  const nextConv = window.slice([], [1, K], []);
  const { q, k, v, beta, g } = headsOf(h, mixed, p, x.b, x.a);
  const S0 = state.recurrent
    .mul(keepOld.reshape([batch, 1, 1, 1]))
    .mul(expJ(g).reshape([batch, h.linearValueHeads, 1, 1]));
  const kk = k.reshape([batch, h.linearValueHeads, h.linearKeyHeadDim, 1]);
  const memory = S0.ref.mul(kk.ref).sum(2);
  const delta = v.sub(memory).mul(beta.reshape([batch, h.linearValueHeads, 1]));
  const S = S0.add(kk.mul(delta.reshape([batch, h.linearValueHeads, 1, h.linearValueHeadDim])));
  const core = S.ref.mul(q.reshape([batch, h.linearValueHeads, h.linearKeyHeadDim, 1])).sum(2);
  return [gatedNorm(h, core, x.z, p.norm, eps), { conv: nextConv, recurrent: S }];
}
