// The eval report as a pure function of stored results.
import { describe, expect, it } from 'vitest';
import type { EvalResult } from '../api/index.ts';
import { evalReport, percentile } from './eval-report.ts';

function result(partial: Partial<EvalResult>): EvalResult {
  return {
    evalId: 'e',
    questionId: 'q',
    seq: 0,
    runId: null,
    status: 'done',
    question: '?',
    set: 's',
    paperIds: [],
    answer: null,
    spans: [],
    gold: [],
    spanPrecision: null,
    spanRecall: null,
    spanF1: null,
    evidenceF1: null,
    rubric: null,
    judge: null,
    latencyMs: 0,
    inputTokens: 0,
    outputTokens: 0,
    costUsd: 0,
    error: null,
    finishedAt: 0,
    ...partial,
  };
}

describe('evalReport', () => {
  it('takes nearest-rank percentiles', () => {
    const sorted = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
    expect(percentile(sorted, 50)).toBe(5);
    expect(percentile(sorted, 90)).toBe(9);
    expect(percentile([7], 90)).toBe(7);
    expect(percentile([], 50)).toBeNull();
  });

  it('averages what is defined and counts unfinished QASPER questions as 0', () => {
    const report = evalReport(
      [
        result({
          rubric: 0.5,
          spanF1: 1,
          evidenceF1: 1,
          latencyMs: 100,
          inputTokens: 10,
          costUsd: 0.5,
        }),
        result({
          status: 'failed',
          rubric: 0,
          spanF1: null,
          evidenceF1: 0.5,
          latencyMs: 300,
          outputTokens: 5,
        }),
      ],
      4,
      true,
    );
    expect(report).toMatchObject({
      total: 4,
      done: 1,
      failed: 1,
      meanRubric: 0.25,
      meanSpanF1: 1,
      evidenceF1: 1.5 / 4,
      latencyMedianMs: 100,
      latencyP90Ms: 300,
      inputTokens: 10,
      outputTokens: 5,
      costUsd: 0.5,
    });
    expect(evalReport([result({ costUsd: null })], 1, false)).toMatchObject({
      costUsd: null,
      evidenceF1: null,
      meanRubric: null,
    });
  });
});
