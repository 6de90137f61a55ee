// The Eval view's pure parts: hit/missed/extra overlays, sorting and filtering the scores table.
import { describe, expect, it } from 'vitest';
import type { EvalResult, LocatedSpan } from '../../../../app/api/index.ts';
import { filterResults, sortResults, upsertResult } from './scores-table.ts';
import { papersTouched, spanOverlay } from './span-overlay.ts';

const at = (paperId: string, start: number, end: number): LocatedSpan => ({
  paperId,
  text: 'x',
  location: { paperId, start, end, method: 'exact', similarity: 1 },
});

describe('spanOverlay', () => {
  it('splits predicted and gold into hit, missed and extra ranges per paper', () => {
    const overlay = spanOverlay(
      [
        at('a', 0, 10),
        at('a', 5, 20),
        at('b', 0, 5),
        { paperId: null, text: 'lost', location: null },
      ],
      [at('a', 15, 30), at('a', 40, 50)],
      'a',
    );
    expect(overlay.ranges.map((r) => [r.start, r.end, r.tone])).toEqual([
      [0, 15, 'amber'],
      [15, 20, 'green'],
      [20, 30, 'rose'],
      [40, 50, 'rose'],
    ]);
    expect(overlay.chars).toEqual({ hit: 5, missed: 20, extra: 15 });
    expect(papersTouched([at('b', 0, 1)], [at('a', 0, 1)])).toEqual(['a', 'b']);
  });
});

const row = (
  seq: number,
  rubric: number | null,
  question: string,
  status: 'done' | 'failed' = 'done',
) =>
  ({
    seq,
    rubric,
    question,
    status,
    questionId: `q${String(seq)}`,
    spanF1: rubric,
    evidenceF1: null,
    latencyMs: seq,
    inputTokens: 0,
    outputTokens: 0,
  }) as EvalResult;

describe('scores table', () => {
  const rows = [row(0, 0.5, 'Alpha?'), row(1, null, 'Beta?'), row(2, 0.9, 'Gamma?', 'failed')];

  it('sorts both ways with missing scores last', () => {
    expect(sortResults(rows, 'rubric', 'desc').map((r) => r.seq)).toEqual([2, 0, 1]);
    expect(sortResults(rows, 'rubric', 'asc').map((r) => r.seq)).toEqual([0, 2, 1]);
    expect(sortResults(rows, 'question', 'desc').map((r) => r.seq)).toEqual([2, 1, 0]);
  });

  it('filters by text, status and span F1, and upserts live rows', () => {
    expect(filterResults(rows, { text: 'GAM', status: 'all', maxSpanF1: 1 })).toHaveLength(1);
    expect(
      filterResults(rows, { text: '', status: 'done', maxSpanF1: 1 }).map((r) => r.seq),
    ).toEqual([0, 1]);
    expect(
      filterResults(rows, { text: '', status: 'all', maxSpanF1: 0.6 }).map((r) => r.seq),
    ).toEqual([0, 1]);
    expect(upsertResult(rows, row(1, 0.1, 'Beta again?')).map((r) => r.question)).toEqual([
      'Alpha?',
      'Beta again?',
      'Gamma?',
    ]);
  });
});
