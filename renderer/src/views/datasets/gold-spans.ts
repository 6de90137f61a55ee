// A question's gold spans as the reader shows and edits them, pure. Gold spans are ranges of the
// text the REPL sees (a paper's contextText: its title and abstract, then its full text); the reader
// and the PDF boxes work on the full text, `contextOffset` characters in.
import type { DatasetQuestion, GoldSpan } from '../../../../app/api/index.ts';
import type { HighlightRange } from '../papers/highlight-tones.ts';
import type { CharRange } from '../papers/route.ts';

/** What of a paper the gold spans are measured against (papers.get's answer has it). */
export interface GoldPaper {
  id: string;
  contextText: string;
  contextOffset: number;
  fullText: string;
}

export class EmptySelectionError extends Error {
  override readonly name = 'EmptySelectionError';
  constructor() {
    super('select some words of the paper first (the selection holds only spaces)');
  }
}

export class GoldSpanTakenError extends Error {
  override readonly name = 'GoldSpanTakenError';
  constructor() {
    super('that passage overlaps a gold span of this question already; remove that one first');
  }
}

/** The gold spans of one paper as full-text highlights (a span in the title or abstract: none). */
export function goldRanges(
  gold: readonly GoldSpan[],
  paper: Pick<GoldPaper, 'id' | 'contextOffset' | 'fullText'>,
): HighlightRange[] {
  return gold.flatMap((span, index) => {
    if (span.paperId !== paper.id) return [];
    const start = span.start - paper.contextOffset;
    const end = Math.min(span.end - paper.contextOffset, paper.fullText.length);
    if (end <= 0 || start >= paper.fullText.length) return [];
    return [{ key: `gold-${String(index)}`, start: Math.max(0, start), end, tone: 'green' }];
  });
}

/** A selection of the full text as a gold span, its edges' whitespace trimmed. */
export function goldFromSelection(paper: GoldPaper, range: CharRange): GoldSpan {
  let start = range.start;
  let end = Math.min(range.end, paper.fullText.length);
  while (start < end && /\s/.test(paper.fullText[start] ?? '')) start++;
  while (end > start && /\s/.test(paper.fullText[end - 1] ?? '')) end--;
  if (end <= start) throw new EmptySelectionError();
  const span = {
    paperId: paper.id,
    start: start + paper.contextOffset,
    end: end + paper.contextOffset,
    text: paper.contextText.slice(start + paper.contextOffset, end + paper.contextOffset),
  };
  return span;
}

/** The spans with one more, in paper and text order; one overlapping a span of its paper is refused. */
export function withGoldSpan(gold: readonly GoldSpan[], span: GoldSpan): GoldSpan[] {
  const overlaps = gold.some(
    (g) => g.paperId === span.paperId && g.start < span.end && span.start < g.end,
  );
  if (overlaps) throw new GoldSpanTakenError();
  return [...gold, span].sort((a, b) =>
    a.paperId === b.paperId ? a.start - b.start : a.paperId < b.paperId ? -1 : 1,
  );
}

export function withoutGoldSpan(gold: readonly GoldSpan[], index: number): GoldSpan[] {
  return gold.filter((_, i) => i !== index);
}

/** The papers a question is over, those with gold first. */
export function questionPapers(question: Pick<DatasetQuestion, 'paperIds' | 'gold'>): string[] {
  const ids = [...new Set(question.gold.map((g) => g.paperId))];
  for (const id of question.paperIds) if (!ids.includes(id)) ids.push(id);
  return ids;
}
