// PCA of sparse vectors by power iteration, without ever forming the covariance matrix: C v is
// computed as Xc^T (Xc v) with the centring folded in. Deterministic: a seeded start vector and a
// sign convention (largest entry positive), so the same input always gives the same picture.
import type { SparseVector } from './tfidf.ts';
import { mulberry32 } from '../../random/mulberry32.ts';

const MAX_ITERATIONS = 300;
/** 1 - |cos| between iterates; 1e-8 is an angle of about 1e-4 rad, far below a pixel. */
const TOLERANCE = 1e-8;
/** A component whose eigenvalue is below this fraction of the data's total square norm is noise. */
const NEGLIGIBLE = 1e-9;

function dot(a: Float64Array, b: Float64Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += (a[i] ?? 0) * (b[i] ?? 0);
  return sum;
}

function sparseDot(x: SparseVector, v: Float64Array): number {
  let sum = 0;
  for (let k = 0; k < x.terms.length; k++) sum += (x.weights[k] ?? 0) * (v[x.terms[k] ?? 0] ?? 0);
  return sum;
}

/** Scores of every vector on direction `v`, centred: (x_i - mean) . v */
function scores(
  vectors: readonly SparseVector[],
  mean: Float64Array,
  v: Float64Array,
): Float64Array {
  const meanDot = dot(mean, v);
  return Float64Array.from(vectors, (x) => sparseDot(x, v) - meanDot);
}

/** n * C v for the centred data. */
function covarianceTimes(
  vectors: readonly SparseVector[],
  mean: Float64Array,
  v: Float64Array,
): Float64Array {
  const u = scores(vectors, mean, v);
  const out = new Float64Array(v.length);
  let total = 0;
  vectors.forEach((x, i) => {
    const ui = u[i] ?? 0;
    total += ui;
    for (let k = 0; k < x.terms.length; k++) {
      const term = x.terms[k] ?? 0;
      out[term] = (out[term] ?? 0) + ui * (x.weights[k] ?? 0);
    }
  });
  for (let d = 0; d < out.length; d++) out[d] = (out[d] ?? 0) - total * (mean[d] ?? 0);
  return out;
}

function orthogonalise(v: Float64Array, against: readonly Float64Array[]): void {
  for (const basis of against) {
    const projection = dot(v, basis);
    for (let d = 0; d < v.length; d++) v[d] = (v[d] ?? 0) - projection * (basis[d] ?? 0);
  }
}

/** Scales to unit length in place; returns the length it had. */
function normalise(v: Float64Array): number {
  const length = Math.sqrt(dot(v, v));
  if (length > 0) for (let d = 0; d < v.length; d++) v[d] = (v[d] ?? 0) / length;
  return length;
}

function fixSign(v: Float64Array): void {
  let largest = 0;
  for (let d = 1; d < v.length; d++) {
    if (Math.abs(v[d] ?? 0) > Math.abs(v[largest] ?? 0)) largest = d;
  }
  if ((v[largest] ?? 0) < 0) for (let d = 0; d < v.length; d++) v[d] = -(v[d] ?? 0);
}

/**
 * The centred scores of each vector on the top `count` principal components; a component with no
 * variance left (one passage, identical passages, two passages for the second axis) scores 0.
 */
export function principalScores(
  vectors: readonly SparseVector[],
  dimension: number,
  count = 2,
  seed = 0x5eed,
): Float64Array[] {
  const n = vectors.length;
  const mean = new Float64Array(dimension);
  for (const x of vectors) {
    for (let k = 0; k < x.terms.length; k++) {
      const term = x.terms[k] ?? 0;
      mean[term] = (mean[term] ?? 0) + (x.weights[k] ?? 0) / n;
    }
  }
  const random = mulberry32(seed);
  const components: Float64Array[] = [];
  const result: Float64Array[] = [];
  let totalSquares = 0;
  for (const x of vectors) for (const w of x.weights) totalSquares += w * w;
  for (let c = 0; c < count; c++) {
    let v: Float64Array = Float64Array.from({ length: dimension }, () => random() - 0.5);
    orthogonalise(v, components);
    normalise(v);
    let eigenvalue = 0;
    for (let iteration = 0; iteration < MAX_ITERATIONS; iteration++) {
      const next = covarianceTimes(vectors, mean, v);
      orthogonalise(next, components);
      eigenvalue = normalise(next);
      if (eigenvalue === 0) break;
      const change = 1 - Math.abs(dot(next, v));
      v = next;
      if (change < TOLERANCE) break;
    }
    if (n < 2 || eigenvalue <= NEGLIGIBLE * totalSquares) {
      result.push(new Float64Array(n));
      continue;
    }
    fixSign(v);
    components.push(v);
    result.push(scores(vectors, mean, v));
  }
  return result;
}
