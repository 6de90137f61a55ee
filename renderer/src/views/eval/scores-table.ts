// Sorting and filtering of an eval's per-question results for the scores table. Missing scores
// (no judge, no gold) sort last whatever the direction.
import type { EvalResult } from '../../../../app/api/index.ts';

export type SortKey =
  'seq' | 'question' | 'status' | 'rubric' | 'spanF1' | 'evidenceF1' | 'latencyMs' | 'tokens';
export type SortDirection = 'asc' | 'desc';

function value(result: EvalResult, key: SortKey): number | string | null {
  switch (key) {
    case 'seq':
      return result.seq;
    case 'question':
      return result.question.toLowerCase();
    case 'status':
      return result.status;
    case 'rubric':
      return result.rubric;
    case 'spanF1':
      return result.spanF1;
    case 'evidenceF1':
      return result.evidenceF1;
    case 'latencyMs':
      return result.latencyMs;
    case 'tokens':
      return result.inputTokens + result.outputTokens;
  }
}

export function sortResults(
  results: readonly EvalResult[],
  key: SortKey,
  direction: SortDirection,
): EvalResult[] {
  const sign = direction === 'asc' ? 1 : -1;
  return [...results].sort((a, b) => {
    const x = value(a, key);
    const y = value(b, key);
    if (x === null || y === null) return x === y ? a.seq - b.seq : x === null ? 1 : -1;
    if (x < y) return -sign;
    if (x > y) return sign;
    return a.seq - b.seq;
  });
}

export interface ResultFilter {
  text: string;
  status: 'all' | 'done' | 'failed';
  /** Only questions whose span F1 is below this (1 keeps all). */
  maxSpanF1: number;
}

export function filterResults(results: readonly EvalResult[], filter: ResultFilter): EvalResult[] {
  const text = filter.text.trim().toLowerCase();
  return results.filter(
    (result) =>
      (filter.status === 'all' || result.status === filter.status) &&
      (text === '' ||
        result.question.toLowerCase().includes(text) ||
        result.questionId.toLowerCase().includes(text)) &&
      (filter.maxSpanF1 >= 1 || (result.spanF1 ?? 0) < filter.maxSpanF1),
  );
}

/** Replaces the row of the same question or adds it (live progress). */
export function upsertResult(results: readonly EvalResult[], result: EvalResult): EvalResult[] {
  const others = results.filter((r) => r.questionId !== result.questionId);
  return [...others, result].sort((a, b) => a.seq - b.seq);
}
