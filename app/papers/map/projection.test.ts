// principalScores on small dense-as-sparse data whose principal axes are known in closed form.
import { EigenvalueDecomposition, Matrix } from 'ml-matrix';
import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../random/mulberry32.ts';
import { principalScores } from './projection.ts';
import type { SparseVector } from './tfidf.ts';

function vector(values: readonly number[]): SparseVector {
  const terms = values.flatMap((v, i) => (v === 0 ? [] : [i]));
  return {
    terms: Int32Array.from(terms),
    weights: Float64Array.from(terms, (i) => values[i] ?? 0),
  };
}

describe('principalScores', () => {
  it('recovers the axis of largest variance, then the next one', () => {
    // Spread 3 along (1, 1, 0)/sqrt2 and 1 along (0, 0, 1); the mean is (1, 1, 1).
    const points = [
      [4, 4, 1],
      [-2, -2, 1],
      [1, 1, 2],
      [1, 1, 0],
    ].map((p) => p.map((v) => v / Math.SQRT2));
    const [first, second] = principalScores(points.map(vector), 3, 2);
    const s = Math.SQRT2 / 2;
    expect([...(first ?? [])].map((v) => Math.abs(v))).toEqual([
      expect.closeTo(3, 4),
      expect.closeTo(3, 4),
      expect.closeTo(0, 4),
      expect.closeTo(0, 4),
    ]);
    expect([...(second ?? [])].map((v) => Math.abs(v))).toEqual([
      expect.closeTo(0, 4),
      expect.closeTo(0, 4),
      expect.closeTo(s, 4),
      expect.closeTo(s, 4),
    ]);
  });

  it('scores 0 on a component with no variance and is stable from run to run', () => {
    const line = [vector([1, 0]), vector([2, 0]), vector([3, 0])];
    const [x, y] = principalScores(line, 2, 2);
    [-1, 0, 1].forEach((v, i) => {
      expect(x?.[i]).toBeCloseTo(v, 10);
    });
    expect([...(y ?? [])]).toEqual([0, 0, 0]);
    expect(principalScores(line, 2, 2)).toEqual([x, y]);
  });

  it('equals the dense eigendecomposition of the covariance on random sparse data', () => {
    const random = mulberry32(7);
    const dimension = 40;
    const rows = Array.from({ length: 300 }, () =>
      Array.from({ length: dimension }, (_, d) => (random() < 0.15 ? random() * (1 + d / 10) : 0)),
    );
    const [x, y] = principalScores(rows.map(vector), dimension, 2);
    const mean = Array.from(
      { length: dimension },
      (_, d) => rows.reduce((sum, row) => sum + (row[d] ?? 0), 0) / rows.length,
    );
    const centred = new Matrix(rows.map((row) => row.map((v, d) => v - (mean[d] ?? 0))));
    const eigen = new EigenvalueDecomposition(centred.transpose().mmul(centred), {
      assumeSymmetric: true,
    });
    const order = eigen.realEigenvalues.map((v, j) => ({ v, j })).sort((a, b) => b.v - a.v);
    [x, y].forEach((got, c) => {
      const axis = eigen.eigenvectorMatrix.getColumn(order[c]?.j ?? 0);
      const expected = centred.mmul(Matrix.columnVector(axis)).getColumn(0);
      const sign = Math.sign((got?.[0] ?? 0) * (expected[0] ?? 0));
      expected.forEach((v, i) => {
        expect(got?.[i]).toBeCloseTo(sign * v, 4);
      });
    });
  });
});
