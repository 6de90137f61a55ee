// The colours a highlighted span may take, the same in the text (CSS custom highlights named
// `paper-hl-<tone>`) and on the PDF (boxes with class `tone-<tone>`); papers.css defines both.
import type { HighlightBox } from '../../../../app/api/index.ts';

export const highlightTones = ['amber', 'blue', 'green', 'violet', 'rose', 'teal'] as const;
export type HighlightTone = (typeof highlightTones)[number];

/** A character range of a paper's fullText to show highlighted, in one tone. */
export interface HighlightRange {
  /** Stable identity of the span (e.g. 'selection', an evidence id). */
  key: string;
  start: number;
  end: number;
  tone: HighlightTone;
}

/** A range with the boxes that cover it on the PDF (empty until the engine answers). */
export interface PaperHighlight extends HighlightRange {
  boxes: HighlightBox[];
}

export function textHighlightName(tone: HighlightTone): string {
  return `paper-hl-${tone}`;
}
