// Finds where a span lies in a paper's text (the text the REPL sees), trying in order: exact;
// normalised (case, whitespace, line-end hyphenation, ligatures, quotes, dashes: app/papers'
// folding); S2ORC placeholders (BIBREF/TABREF/FIGREF/SECREF/INLINEFORM/DISPLAYFORM tokens and
// LaTeX cut out, the pieces found in order with short gaps between); approximate (an edit-distance
// alignment, or for long spans an alignment by anchors, whose similarity must reach a threshold). Of several equal matches, one that starts and
// ends on line boundaries wins (a copied paragraph or heading), else the first.
import {
  approximateMatches,
  foldText,
  sourceRange,
  type FoldedText,
} from '../papers/search/index.ts';
import { anchoredAlignment, CUT } from './anchored-alignment.ts';
import type { EvidencePaper } from './question.ts';

export type LocateMethod = 'exact' | 'normalised' | 'placeholders' | 'approximate';

export interface SpanLocation {
  paperId: string;
  start: number;
  end: number;
  method: LocateMethod;
  /** 1 for exact, normalised and placeholder matches; 1 - edits/length for approximate ones. */
  similarity: number;
}

export interface LocateOptions {
  /** Lowest similarity an approximate match may have (default 0.85). */
  threshold?: number;
  /** Skip the approximate step (fast path for spans copied from the text). */
  approximate?: boolean;
}

export const DEFAULT_THRESHOLD = 0.85;
/** Shorter spans are too ambiguous to align approximately. */
const MIN_APPROXIMATE_LENGTH = 16;
/** Spans long enough to align by anchors (several chunks of 20+ characters). */
const MIN_ANCHORED_LENGTH = 80;
const MAX_OCCURRENCES = 64;
/** Characters a placeholder's replacement may take in the text ("[12]", "(Smith et al., 2019)"). */
const PLACEHOLDER_GAP = 80;

/** QASPER's annotations cite captions with this marker; it is not in any text. */
const CAPTION_MARKER = /^FLOAT SELECTED:\s*/i;
const PLACEHOLDER =
  /\b(?:BIBREF|TABREF|FIGREF|SECREF|EQREF|INLINEFORM|DISPLAYFORM)\d+\b|\$\$[\s\S]*?\$\$|\$[^$\n]{0,200}\$|\\[a-zA-Z]+(?:\{[^{}]*\})?/g;

function isAligned(text: string, start: number, end: number): boolean {
  return (start === 0 || text[start - 1] === '\n') && (end === text.length || text[end] === '\n');
}

/** Occurrences of `needle` in `haystack`, the aligned one first if any (by source offsets). */
function bestOccurrence(
  haystack: string,
  needle: string,
  toSource: (start: number, end: number) => [number, number],
  source: string,
): [number, number] | null {
  let first: [number, number] | null = null;
  let at = haystack.indexOf(needle);
  for (let count = 0; at >= 0 && count < MAX_OCCURRENCES; count++) {
    const range = toSource(at, at + needle.length);
    if (isAligned(source, range[0], range[1])) return range;
    first ??= range;
    at = haystack.indexOf(needle, at + 1);
  }
  return first;
}

function foldedPattern(text: string): string {
  return foldText(text).text.trim();
}

/** A paper's text with its folded form built on first need, and a cache of located spans. */
export class PaperIndex {
  readonly paper: EvidencePaper;
  #folded: FoldedText | null = null;
  readonly #cache = new Map<string, SpanLocation | null>();

  constructor(paper: EvidencePaper) {
    this.paper = paper;
  }

  get folded(): FoldedText {
    this.#folded ??= foldText(this.paper.text);
    return this.#folded;
  }

  #foldedToSource = (start: number, end: number): [number, number] =>
    sourceRange(this.folded, start, end);

  exact(span: string): SpanLocation | null {
    const range = bestOccurrence(this.paper.text, span, (s, e) => [s, e], this.paper.text);
    return range ? this.#location(range, 'exact', 1) : null;
  }

  normalised(span: string): SpanLocation | null {
    const pattern = foldedPattern(span);
    if (pattern.length === 0) return null;
    const range = bestOccurrence(this.folded.text, pattern, this.#foldedToSource, this.paper.text);
    return range ? this.#location(range, 'normalised', 1) : null;
  }

  /** The span's pieces between placeholders, found in order with bounded gaps. */
  placeholders(span: string): SpanLocation | null {
    PLACEHOLDER.lastIndex = 0;
    if (!PLACEHOLDER.test(span)) return null;
    const pieces = span
      .split(PLACEHOLDER)
      .map(foldedPattern)
      .filter((piece) => piece.replace(/[^\p{L}\p{N}]/gu, '').length >= 3);
    const [head, ...rest] = pieces;
    if (head === undefined) return null;
    const folded = this.folded.text;
    let at = folded.indexOf(head);
    for (let tries = 0; at >= 0 && tries < MAX_OCCURRENCES; tries++) {
      let end = at + head.length;
      let ok = true;
      for (const piece of rest) {
        const next = folded.indexOf(piece, end);
        if (next < 0 || next - end > PLACEHOLDER_GAP) {
          ok = false;
          break;
        }
        end = next + piece.length;
      }
      if (ok) return this.#location(this.#foldedToSource(at, end), 'placeholders', 1);
      at = folded.indexOf(head, at + 1);
    }
    return null;
  }

  /** The best alignment with at most (1 - threshold) x length edits, or null. */
  approximate(span: string, threshold: number): SpanLocation | null {
    PLACEHOLDER.lastIndex = 0;
    const pattern = foldedPattern(span.replace(PLACEHOLDER, ' ')).replace(/ {2,}/g, ' ');
    if (pattern.length < MIN_APPROXIMATE_LENGTH) return null;
    const maxEdits = Math.floor((1 - threshold) * pattern.length);
    if (maxEdits < 1) return null;
    let best: { start: number; end: number; distance: number } | null = null;
    for (const match of approximateMatches(this.folded.text, pattern, maxEdits)) {
      if (!best || match.distance < best.distance) best = match;
    }
    if (best)
      return this.#location(
        this.#foldedToSource(best.start, best.end),
        'approximate',
        1 - best.distance / pattern.length,
      );
    // Long spans: whole stretches may differ (a footnote inside, a citation key): align by anchors.
    if (pattern.length < MIN_ANCHORED_LENGTH) return null;
    PLACEHOLDER.lastIndex = 0;
    const cut = foldedPattern(span.replace(PLACEHOLDER, ` ${CUT} `)).replace(/ {2,}/g, ' ');
    const anchored = anchoredAlignment(this.folded.text, cut);
    if (!anchored || anchored.coverage < threshold) return null;
    return this.#location(
      this.#foldedToSource(anchored.start, anchored.end),
      'approximate',
      anchored.coverage,
    );
  }

  #location(range: [number, number], method: LocateMethod, similarity: number): SpanLocation {
    return { paperId: this.paper.id, start: range[0], end: range[1], method, similarity };
  }

  /** Every step in order; null when none finds the span. Results are cached per text. */
  locate(text: string, options: LocateOptions = {}): SpanLocation | null {
    const key = `${options.approximate === false ? '-' : '+'}${options.threshold ?? ''}|${text}`;
    if (this.#cache.has(key)) return this.#cache.get(key) ?? null;
    const span = cleanSpan(text);
    let found: SpanLocation | null = null;
    if (span.length > 0) {
      found =
        this.exact(span) ??
        this.normalised(span) ??
        this.placeholders(span) ??
        (options.approximate === false
          ? null
          : this.approximate(span, options.threshold ?? DEFAULT_THRESHOLD));
    }
    this.#cache.set(key, found);
    return found;
  }
}

/** The span as it could appear in a text: trimmed, QASPER's caption marker removed. */
export function cleanSpan(text: string): string {
  return text.trim().replace(CAPTION_MARKER, '').trim();
}

const stages: readonly LocateMethod[] = ['exact', 'normalised', 'placeholders', 'approximate'];

/**
 * Locates a span in its paper, or, when it names none (a model's bare string), in whichever of the
 * papers holds it by the most direct method (exact first, approximate last), the most similar
 * approximate match winning and then the first paper.
 */
export function locateSpan(
  papers: readonly PaperIndex[],
  span: { paperId?: string | undefined; text: string },
  options: LocateOptions = {},
): SpanLocation | null {
  const candidates =
    span.paperId === undefined ? papers : papers.filter((index) => index.paper.id === span.paperId);
  const [only] = candidates;
  if (candidates.length === 1 && only) return only.locate(span.text, options);
  const text = cleanSpan(span.text);
  if (text.length === 0) return null;
  for (const stage of stages) {
    if (stage === 'approximate' && options.approximate === false) break;
    let best: SpanLocation | null = null;
    for (const index of candidates) {
      const found =
        stage === 'approximate'
          ? index.approximate(text, options.threshold ?? DEFAULT_THRESHOLD)
          : index[stage](text);
      if (found && (!best || found.similarity > best.similarity)) best = found;
      if (best && stage !== 'approximate') break;
    }
    if (best) return best;
  }
  return null;
}
