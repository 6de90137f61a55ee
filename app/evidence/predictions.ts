// Prediction files: JSON lines {"id", "spans": [{"paperId"?, "text"}]}; a bad row is an issue with
// its line number and the others still load. Also the answers models give (a list of strings, a
// dict of paper id -> strings, one string) turned into spans.
import { z } from 'zod';
import { dropDuplicateIds, parseJsonLines } from './json-lines.ts';
import type { EvidenceSpan, RowIssue } from './question.ts';

export const PredictionRow = z
  .object({
    id: z.string().min(1),
    spans: z.array(z.object({ paperId: z.string().min(1).optional(), text: z.string() }).strict()),
  })
  .loose();

export function parsePredictions(text: string): {
  predictions: Map<string, EvidenceSpan[]>;
  issues: RowIssue[];
} {
  const { rows, issues } = parseJsonLines(text, PredictionRow);
  const predictions = new Map<string, EvidenceSpan[]>();
  for (const { value } of dropDuplicateIds(rows, issues)) predictions.set(value.id, value.spans);
  return { predictions, issues };
}

/**
 * A model's final answer -> spans: strings anywhere in lists are spans with no paper; a dict maps
 * paper ids to their strings. Other values are kept as their text so nothing is dropped silently.
 */
export function answerSpans(answer: unknown, paperId?: string): EvidenceSpan[] {
  if (answer === null || answer === undefined) return [];
  if (typeof answer === 'string')
    return answer.trim().length > 0 ? [{ ...(paperId ? { paperId } : {}), text: answer }] : [];
  if (Array.isArray(answer)) return answer.flatMap((item) => answerSpans(item, paperId));
  if (typeof answer === 'object')
    return Object.entries(answer as Record<string, unknown>).flatMap(([key, value]) =>
      answerSpans(value, paperId ?? key),
    );
  if (typeof answer === 'number' || typeof answer === 'boolean')
    return [{ ...(paperId ? { paperId } : {}), text: String(answer) }];
  return [];
}
