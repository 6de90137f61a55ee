// What a paper set holds, in words: "2 papers · 28 pages", and "text only" for a set of QASPER
// papers (no PDF, so no pages) rather than "0 pages".
import type { PaperSetSummary } from '../../../../app/api/index.ts';
import { countOf } from '../../format/count.ts';

export function setSize(set: Pick<PaperSetSummary, 'papers' | 'pages'>): string {
  const papers = countOf(set.papers, 'paper');
  if (set.pages > 0) return `${papers} · ${countOf(set.pages, 'page')}`;
  return set.papers > 0 ? `${papers} · text only` : papers;
}
