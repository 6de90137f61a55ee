// PCA of sparse vectors by Lanczos, without ever forming the covariance matrix: C v is computed as
// Xc^T (Xc v) with the centring folded in. Deterministic: a seeded start vector and a sign
// convention (largest entry positive), so the same input always gives the same picture.
import type { SparseMatrix, SparseVector } from './tfidf.ts';
import { EigenvalueDecomposition, Matrix } from 'ml-matrix';
import { mulberry32 } from '../../random/mulberry32.ts';

/** Most Lanczos steps (products C v); the 1,000-paper map needs about 20. */
const MAX_STEPS = 200;
/**
 * Residual bound relative to the top eigenvalue. A component's angle error is about the residual
 * over its eigenvalue gap: on the 1,000-paper map (gap 0.17 of the top) 1e-6 is ~6e-6 rad.
 */
const TOLERANCE = 1e-6;
/** A component whose eigenvalue is below this fraction of the data's total square norm is noise. */
const NEGLIGIBLE = 1e-9;

function dot(a: Float64Array, b: Float64Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += (a[i] ?? 0) * (b[i] ?? 0);
  return sum;
}

/** Packs vectors row after row (CSR); TF-IDF already gives its vectors this way. */
export function packVectors(vectors: readonly SparseVector[]): SparseMatrix {
  const offsets = new Int32Array(vectors.length + 1);
  vectors.forEach((x, i) => (offsets[i + 1] = (offsets[i] ?? 0) + x.terms.length));
  const size = offsets[vectors.length] ?? 0;
  const terms = new Int32Array(size);
  const weights = new Float64Array(size);
  vectors.forEach((x, i) => {
    terms.set(x.terms, offsets[i]);
    weights.set(x.weights, offsets[i]);
  });
  return { rows: vectors.length, offsets, terms, weights };
}

/** Scores of every row on direction `v`, centred: (x_i - mean) . v */
function scores(matrix: SparseMatrix, mean: Float64Array, v: Float64Array): Float64Array {
  const meanDot = dot(mean, v);
  const { rows, offsets, terms, weights } = matrix;
  const out = new Float64Array(rows);
  for (let i = 0; i < rows; i++) {
    let sum = 0;
    const end = offsets[i + 1] ?? 0;
    for (let k = offsets[i] ?? 0; k < end; k++) sum += (weights[k] ?? 0) * (v[terms[k] ?? 0] ?? 0);
    out[i] = sum - meanDot;
  }
  return out;
}

/**
 * n * C v for the centred data, as Xc^T (Xc v) in one pass: each row's score is used while the
 * row is still in cache.
 */
function covarianceTimes(matrix: SparseMatrix, mean: Float64Array, v: Float64Array): Float64Array {
  const meanDot = dot(mean, v);
  const { rows, offsets, terms, weights } = matrix;
  const out = new Float64Array(v.length);
  let total = 0;
  for (let i = 0; i < rows; i++) {
    const begin = offsets[i] ?? 0;
    const end = offsets[i + 1] ?? 0;
    let sum = 0;
    for (let k = begin; k < end; k++) sum += (weights[k] ?? 0) * (v[terms[k] ?? 0] ?? 0);
    const ui = sum - meanDot;
    total += ui;
    for (let k = begin; k < end; k++) {
      const term = terms[k] ?? 0;
      out[term] = (out[term] ?? 0) + ui * (weights[k] ?? 0);
    }
  }
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

/** sum_j columns[j] * coefficients[j] */
function combine(columns: readonly Float64Array[], coefficients: readonly number[]): Float64Array {
  const out = new Float64Array(columns[0]?.length ?? 0);
  columns.forEach((column, j) => {
    const c = coefficients[j] ?? 0;
    if (c !== 0) for (let d = 0; d < out.length; d++) out[d] = (out[d] ?? 0) + c * (column[d] ?? 0);
  });
  return out;
}

/** The top `count` eigenpairs of the symmetric tridiagonal matrix with this diagonal and off-diagonal. */
function topOfTridiagonal(
  alphas: readonly number[],
  betas: readonly number[],
  count: number,
): { values: number[]; vectors: number[][] } {
  const k = alphas.length;
  const t = Matrix.zeros(k, k);
  alphas.forEach((a, i) => {
    t.set(i, i, a);
    if (i + 1 < k) {
      t.set(i, i + 1, betas[i] ?? 0);
      t.set(i + 1, i, betas[i] ?? 0);
    }
  });
  const eigen = new EigenvalueDecomposition(t, { assumeSymmetric: true });
  const order = eigen.realEigenvalues
    .map((value, j) => ({ value, j }))
    .sort((x, y) => y.value - x.value)
    .slice(0, count);
  return {
    values: order.map(({ value }) => value),
    vectors: order.map(({ j }) => eigen.eigenvectorMatrix.getColumn(j)),
  };
}

/**
 * The centred scores of each vector on the top `count` principal components; a component with no
 * variance left (one passage, identical passages, two passages for the second axis) scores 0.
 *
 * Lanczos with full reorthogonalisation from one seeded start vector: the Krylov space finds the
 * top eigenvectors in far fewer products C v than power iteration with deflation (the 1,000-paper
 * map: 71 products before, see DECISIONS.md). It stops when each wanted Ritz pair's residual
 * |C r - theta r| (beta_k |y_k|, exact in exact arithmetic) is below TOLERANCE times the top
 * eigenvalue, or when the Krylov space is invariant (the data's rank is reached). A repeated
 * eigenvalue is found once, so of two equal top components only one is kept.
 */
export function principalScores(
  vectors: SparseMatrix | readonly SparseVector[],
  dimension: number,
  count = 2,
  seed = 0x5eed,
): Float64Array[] {
  const matrix = 'offsets' in vectors ? vectors : packVectors(vectors);
  const n = matrix.rows;
  const mean = new Float64Array(dimension);
  const { terms, weights } = matrix;
  let totalSquares = 0;
  for (let k = 0; k < terms.length; k++) {
    const term = terms[k] ?? 0;
    const w = weights[k] ?? 0;
    mean[term] = (mean[term] ?? 0) + w / n;
    totalSquares += w * w;
  }
  const random = mulberry32(seed);
  const start = Float64Array.from({ length: dimension }, () => random() - 0.5);
  const basis: Float64Array[] = [];
  const alphas: number[] = [];
  const betas: number[] = [];
  let top: { values: number[]; vectors: number[][] } = { values: [], vectors: [] };
  if (normalise(start) > 0 && n > 0) basis.push(start);
  const steps = Math.min(dimension, MAX_STEPS);
  for (let j = 0; j < basis.length && j < steps; j++) {
    const v = basis[j] ?? start;
    const w = covarianceTimes(matrix, mean, v);
    alphas.push(dot(w, v));
    // Against every earlier vector, twice ("twice is enough"): the three-term recurrence alone
    // loses orthogonality in floating point.
    orthogonalise(w, basis);
    orthogonalise(w, basis);
    const beta = normalise(w);
    top = topOfTridiagonal(alphas, betas, count);
    const largest = Math.max(top.values[0] ?? 0, 0);
    const invariant = beta <= 1e-12 * Math.max(largest, 1e-300);
    const converged =
      top.values.length === Math.min(count, alphas.length) &&
      alphas.length >= count &&
      top.vectors.every((y) => beta * Math.abs(y[j] ?? 0) <= TOLERANCE * largest);
    if (invariant || converged || largest === 0) break;
    betas.push(beta);
    basis.push(w);
  }
  return Array.from({ length: count }, (_, c) => {
    const y = top.vectors[c];
    if (n < 2 || y === undefined || (top.values[c] ?? 0) <= NEGLIGIBLE * totalSquares)
      return new Float64Array(n);
    const v = combine(basis.slice(0, y.length), y);
    normalise(v);
    fixSign(v);
    return scores(matrix, mean, v);
  });
}
