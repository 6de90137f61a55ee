// A paper's text cut into passages of about 400-1200 characters for ranked search and the map.
// Invariants: passage.text === fullText.slice(start, end); passages are disjoint, in text order, never
// span a section start, and together cover every non-space character of the text.
import { boundariesIn, isSpace, type Span } from './sentences.ts';

export interface Passage {
  paperId: string;
  start: number;
  end: number;
  text: string;
  /** Title of the innermost section the passage starts in. */
  section?: string;
}

export interface SectionSpan {
  title: string;
  start: number;
  end: number;
}

export const PASSAGE_MIN = 400;
export const PASSAGE_MAX = 1200;
/** A paragraph longer than PASSAGE_MAX is packed sentence by sentence up to about this much. */
const PASSAGE_TARGET = 800;

/** [start, end) with surrounding whitespace removed; empty when only whitespace. */
function trimmed(text: string, start: number, end: number): Span {
  let s = start;
  let e = end;
  while (s < e && isSpace(text.charCodeAt(s))) s++;
  while (e > s && isSpace(text.charCodeAt(e - 1))) e--;
  return { start: s, end: e };
}

/** Pieces of [start, end) split at `cuts`, trimmed, empty ones dropped. */
function piecesBetween(text: string, start: number, end: number, cuts: readonly number[]): Span[] {
  const pieces: Span[] = [];
  let from = start;
  for (const cut of [...cuts.filter((c) => c > start && c < end), end]) {
    const piece = trimmed(text, from, cut);
    if (piece.end > piece.start) pieces.push(piece);
    from = cut;
  }
  return pieces;
}

/** Cuts at whitespace so that no piece of an unpunctuated run exceeds PASSAGE_MAX. */
function hardCuts(text: string, span: Span): number[] {
  const cuts: number[] = [];
  let from = span.start;
  while (span.end - from > PASSAGE_MAX) {
    let cut = from + PASSAGE_TARGET;
    while (cut > from + PASSAGE_MIN && !isSpace(text.charCodeAt(cut))) cut--;
    if (cut <= from + PASSAGE_MIN) cut = from + PASSAGE_TARGET; // no space at all: cut anyway
    cuts.push(cut);
    from = cut;
  }
  return cuts;
}

/** Offsets of the blank lines inside a region: the paragraph breaks. */
function blankLines(text: string, region: Span): number[] {
  const cuts: number[] = [];
  const blank = /\n[^\S\n]*\n/g;
  blank.lastIndex = region.start;
  for (let m = blank.exec(text); m !== null && m.index < region.end; m = blank.exec(text)) {
    cuts.push(m.index);
  }
  return cuts;
}

/** Units that packing never splits: paragraphs, or sentences of paragraphs over PASSAGE_MAX. */
function units(text: string, region: Span): { span: Span; paragraphStart: boolean }[] {
  const out: { span: Span; paragraphStart: boolean }[] = [];
  for (const paragraph of piecesBetween(text, region.start, region.end, blankLines(text, region))) {
    if (paragraph.end - paragraph.start <= PASSAGE_MAX) {
      out.push({ span: paragraph, paragraphStart: true });
      continue;
    }
    const sentenceStarts = boundariesIn(text, paragraph.start, paragraph.end).map((b) => b.start);
    let first = true;
    for (const sentence of piecesBetween(text, paragraph.start, paragraph.end, sentenceStarts)) {
      for (const piece of piecesBetween(
        text,
        sentence.start,
        sentence.end,
        hardCuts(text, sentence),
      )) {
        out.push({ span: piece, paragraphStart: first });
        first = false;
      }
    }
  }
  return out;
}

/** Greedy packing: close a passage at a paragraph once it has PASSAGE_MIN, never exceed MAX. */
function pack(pieces: { span: Span; paragraphStart: boolean }[]): Span[] {
  const packed: Span[] = [];
  let current: Span | undefined;
  for (const { span, paragraphStart } of pieces) {
    if (current !== undefined) {
      const length = current.end - current.start;
      const full = length >= (paragraphStart ? PASSAGE_MIN : PASSAGE_TARGET);
      if (full || span.end - current.start > PASSAGE_MAX) {
        packed.push(current);
        current = undefined;
      }
    }
    if (current === undefined) current = { ...span };
    else current.end = span.end;
  }
  if (current !== undefined) packed.push(current);
  // A short tail joins the passage before it when the two still fit.
  const tail = packed.at(-1);
  const before = packed.at(-2);
  if (
    tail !== undefined &&
    before !== undefined &&
    tail.end - tail.start < PASSAGE_MIN &&
    tail.end - before.start <= PASSAGE_MAX
  ) {
    before.end = tail.end;
    packed.pop();
  }
  return packed;
}

/** The innermost section containing `offset` (the latest-starting one). */
function sectionAt(sections: readonly SectionSpan[], offset: number): string | undefined {
  let found: SectionSpan | undefined;
  for (const section of sections) {
    if (section.start <= offset && offset < section.end) {
      if (found === undefined || section.start >= found.start) found = section;
    }
  }
  return found?.title;
}

/** Cuts `fullText` into passages; with sections, passages also break at every section start. */
export function splitPassages(
  paperId: string,
  fullText: string,
  sections: readonly SectionSpan[] = [],
): Passage[] {
  const breaks = [...new Set(sections.map((s) => s.start))]
    .filter((b) => b > 0 && b < fullText.length)
    .sort((a, b) => a - b);
  const regions = piecesBetween(fullText, 0, fullText.length, breaks);
  const passages: Passage[] = [];
  for (const region of regions) {
    for (const { start, end } of pack(units(fullText, region))) {
      const section = sectionAt(sections, start);
      const text = fullText.slice(start, end);
      passages.push(
        section === undefined
          ? { paperId, start, end, text }
          : { paperId, start, end, text, section },
      );
    }
  }
  return passages;
}
