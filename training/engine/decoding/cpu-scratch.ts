// The CPU decoder's work arrays, allocated once for its largest step (every slot's prefill chunk)
// in the WebAssembly memory that holds the weights, and viewed at the rows a step has.
import { deltaNetDims, type DecoderConfig } from '../loading/model-config.ts';

export interface Scratch {
  /** Rows (positions of all slots) the arrays hold. */
  batch: number;
  x: Float32Array;
  xb: Float32Array;
  q: Float32Array;
  k: Float32Array;
  v: Float32Array;
  /** One position's attention scores: not per row. */
  att: Float32Array;
  attOut: Float32Array;
  hb: Float32Array;
  hb2: Float32Array;
  logits: Float32Array;
  /** Qwen3.5: q_proj's query and gate rows, the gate alone, and the DeltaNet projections. */
  qg: Float32Array;
  gate: Float32Array;
  qkv: Float32Array;
  z: Float32Array;
  beta: Float32Array;
  alpha: Float32Array;
  core: Float32Array;
}

/** Floats of each array for `batch` rows (its staging bytes size the WebAssembly memory). */
export function scratchSizes(c: DecoderConfig, batch: number, maxSeqLen: number) {
  const linear = c.hybrid ? deltaNetDims(c.hybrid) : { convDim: 0, valueDim: 0 };
  return {
    x: batch * c.dim,
    q: batch * c.nHeads * c.headDim,
    kv: batch * c.nKvHeads * c.headDim,
    att: maxSeqLen,
    hidden: batch * c.hiddenDim,
    logits: batch * c.vocabSize,
    qg: c.hybrid ? 2 * batch * c.nHeads * c.headDim : 0,
    qkv: batch * linear.convDim,
    value: batch * linear.valueDim,
    heads: batch * (c.hybrid?.linearValueHeads ?? 0),
  };
}

export function allocateScratch(
  c: DecoderConfig,
  batch: number,
  maxSeqLen: number,
  make: (floats: number) => Float32Array,
): Scratch {
  const sizes = scratchSizes(c, batch, maxSeqLen);
  return {
    batch,
    x: make(sizes.x),
    xb: make(sizes.x),
    q: make(sizes.q),
    k: make(sizes.kv),
    v: make(sizes.kv),
    att: make(sizes.att),
    attOut: make(sizes.q),
    hb: make(sizes.hidden),
    hb2: make(sizes.hidden),
    logits: make(sizes.logits),
    qg: make(sizes.qg),
    gate: make(sizes.q),
    qkv: make(sizes.qkv),
    z: make(sizes.value),
    beta: make(sizes.heads),
    alpha: make(sizes.heads),
    core: make(sizes.value),
  };
}

/** The first `batch` rows of every per-row array of `full`. */
export function scratchRows(full: Scratch, batch: number): Scratch {
  const rows = (a: Float32Array): Float32Array => a.subarray(0, (a.length / full.batch) * batch);
  return {
    batch,
    x: rows(full.x),
    xb: rows(full.xb),
    q: rows(full.q),
    k: rows(full.k),
    v: rows(full.v),
    att: full.att,
    attOut: rows(full.attOut),
    hb: rows(full.hb),
    hb2: rows(full.hb2),
    logits: rows(full.logits),
    qg: rows(full.qg),
    gate: rows(full.gate),
    qkv: rows(full.qkv),
    z: rows(full.z),
    beta: rows(full.beta),
    alpha: rows(full.alpha),
    core: rows(full.core),
  };
}
