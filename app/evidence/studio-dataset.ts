// Our dataset format: JSON lines, one question each, over a workspace paper set:
// {"id", "question", "set", "paperIds"?, "gold": [{"paperId", "text"}], "metadata"?}.
import { z } from 'zod';
import { dropDuplicateIds, parseJsonLines } from './json-lines.ts';
import type { EvidenceDataset, EvidenceQuestion } from './question.ts';

export const OurRow = z
  .object({
    id: z.string().min(1),
    question: z.string().min(1),
    set: z.string().min(1),
    paperIds: z.array(z.string().min(1)).min(1).optional(),
    gold: z.array(z.object({ paperId: z.string().min(1), text: z.string().min(1) }).strict()),
    metadata: z.record(z.string(), z.unknown()).optional(),
  })
  .strict()
  .superRefine((row, context) => {
    if (!row.paperIds) return;
    const known = new Set(row.paperIds);
    row.gold.forEach((span, index) => {
      if (!known.has(span.paperId))
        context.addIssue({
          code: 'custom',
          path: ['gold', index, 'paperId'],
          message: `'${span.paperId}' is not one of the row's paperIds`,
        });
    });
  });
export type OurRow = z.infer<typeof OurRow>;

export function parseOurDataset(name: string, text: string): EvidenceDataset {
  const { rows, issues } = parseJsonLines(text, OurRow);
  const questions = dropDuplicateIds(rows, issues).map(({ value }): EvidenceQuestion => ({
    id: value.id,
    question: value.question,
    set: value.set,
    paperIds: value.paperIds ?? null,
    gold: value.gold,
    metadata: value.metadata ?? {},
  }));
  return {
    name,
    format: 'ours',
    questions,
    issues,
    papers: new Map(),
    hasEvidenceF1: false,
  };
}

export function toOurRow(question: EvidenceQuestion): OurRow {
  return {
    id: question.id,
    question: question.question,
    set: question.set,
    ...(question.paperIds ? { paperIds: question.paperIds } : {}),
    gold: question.gold.map((span) => ({ paperId: span.paperId ?? '', text: span.text })),
    ...(Object.keys(question.metadata).length > 0 ? { metadata: question.metadata } : {}),
  };
}
