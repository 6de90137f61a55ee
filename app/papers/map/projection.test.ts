// principalScores on small dense-as-sparse data whose principal axes are known in closed form.
import { describe, expect, it } from 'vitest';
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
});
