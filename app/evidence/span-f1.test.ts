// Character-span P/R/F1 (RLM-SPEC section 4) on hand-computed cases.
import { describe, expect, it } from 'vitest';
import { intersectionSize, mergeIntervals, scoreSpans, unionSize } from './span-f1.ts';

describe('span F1', () => {
  it('merges overlapping and touching intervals', () => {
    expect(
      mergeIntervals([
        { start: 5, end: 10 },
        { start: 0, end: 3 },
        { start: 3, end: 4 },
        { start: 8, end: 12 },
      ]),
    ).toEqual([
      { start: 0, end: 4 },
      { start: 5, end: 12 },
    ]);
    expect(
      unionSize([
        { start: 0, end: 10 },
        { start: 5, end: 15 },
      ]),
    ).toBe(15);
    expect(
      intersectionSize(
        [
          { start: 0, end: 10 },
          { start: 20, end: 30 },
        ],
        [{ start: 5, end: 25 }],
      ),
    ).toBe(10);
  });

  it('scores per paper and pools characters over papers', () => {
    const predicted = new Map([
      ['a', [{ start: 0, end: 10 }]], // 10 chars, 5 overlap
      ['b', [{ start: 100, end: 130 }]], // 30 chars, nothing gold in b
    ]);
    const gold = new Map([
      ['a', [{ start: 5, end: 25 }]], // 20 chars
      ['c', [{ start: 0, end: 10 }]], // 10 chars, never predicted
    ]);
    const { pooled, perPaper } = scoreSpans(predicted, gold);
    expect(perPaper.a).toMatchObject({ precision: 0.5, recall: 0.25 });
    expect(perPaper.a?.f1).toBeCloseTo((2 * 0.5 * 0.25) / 0.75, 12);
    expect(perPaper.b).toMatchObject({ precision: 0, recall: 0, f1: 0 });
    expect(perPaper.c).toMatchObject({ precision: 0, recall: 0, f1: 0, goldChars: 10 });
    expect(pooled).toMatchObject({ predictedChars: 40, goldChars: 30, overlapChars: 5 });
    expect(pooled.precision).toBeCloseTo(5 / 40, 12);
    expect(pooled.recall).toBeCloseTo(5 / 30, 12);
  });

  it('gives 0, not NaN, when a side is empty', () => {
    const { pooled } = scoreSpans(new Map(), new Map([['a', [{ start: 0, end: 4 }]]]));
    expect(pooled).toMatchObject({ precision: 0, recall: 0, f1: 0 });
  });
});
