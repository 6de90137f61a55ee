// The REPL's `search(text, keyword, window, bidirectional)` (RLM-SPEC section 2). Invariant: every
// hit's text === source.slice(start, end), so evidence built from snippets stays verbatim. Exact
// case-insensitive matching first; only when no paper has an exact hit, the fuzzy fallback.
import { approximateMatches, editBudget } from './approximate.ts';
import { EmptyKeywordError, SearchOptionError } from './errors.ts';
import { foldText, lowerKeepingOffsets, sourceRange, type FoldedText } from './normalise.ts';
import { WordIndex } from './word-index.ts';
import {
  indexSentences,
  mergeSpans,
  snippetAround,
  type SentenceIndex,
  type Span,
} from './sentences.ts';

export interface KeywordHit {
  start: number;
  end: number;
  /** Always `source.slice(start, end)`. */
  text: string;
}

export interface KeywordSearchOptions {
  /** About how many characters of context a snippet carries (300). */
  window?: number;
  /** Context before and after the hit (true), or from its sentence onwards only (false). */
  bidirectional?: boolean;
}

export interface KeywordSetResult {
  /** True when no paper matched exactly and these hits come from the fuzzy fallback. */
  fuzzy: boolean;
  /** Paper id -> its snippets in text order; papers without hits are omitted. */
  hits: Record<string, KeywordHit[]>;
}

export type PaperTexts = Readonly<Record<string, string>> | ReadonlyMap<string, string>;

/** Shorter folded keywords are never matched approximately: they would match almost anywhere. */
export const MIN_APPROXIMATE_LENGTH = 4;
const MAX_WINDOW = 100_000;
/**
 * From this many characters a set's exact search may go through a word index instead of a scan:
 * a scan of the 1,000-paper set (~60 M characters) took ~40 ms a keyword, of 20 papers 0.5 ms.
 */
export const WORD_INDEX_FROM_CHARS = 4_000_000;
/**
 * Scans before the index is built, by default: building it for 60 M characters takes ~3.5 s, the
 * time of ~90 scans, so a REPL context searched a few times never pays for it. A long-lived index
 * (the app's set search) passes 0.
 */
export const WORD_INDEX_AFTER_SEARCHES = 32;

export interface KeywordIndexOptions {
  /** Total characters from which exact search uses a word index (WORD_INDEX_FROM_CHARS). */
  wordIndexFromChars?: number;
  /** Exact searches scanned before the word index is built (WORD_INDEX_AFTER_SEARCHES). */
  wordIndexAfterSearches?: number;
}

interface PaperEntry {
  readonly id: string;
  readonly text: string;
  /** Lowercased with offsets unchanged, built on first search. */
  lower?: string;
  /** Folded for the fuzzy fallback, built on first fallback. */
  folded?: FoldedText;
  /** Sentence boundaries, built on the first hit in this paper. */
  sentences?: SentenceIndex;
}

/** Where the keyword was found, as parallel arrays (papers by index): no object per hit. */
class Located {
  readonly paper: number[] = [];
  readonly start: number[] = [];
  readonly end: number[] = [];
  get length(): number {
    return this.paper.length;
  }
  push(paper: number, start: number, end: number): void {
    this.paper.push(paper);
    this.start.push(start);
    this.end.push(end);
  }
}

function isMap(texts: PaperTexts): texts is ReadonlyMap<string, string> {
  return texts instanceof Map;
}

/** [id, text] pairs of a dict or a Map, in insertion order. */
export function paperEntries(texts: PaperTexts): [string, string][] {
  return isMap(texts) ? [...texts.entries()] : Object.entries(texts);
}

function resolveOptions(options: KeywordSearchOptions): { window: number; bidirectional: boolean } {
  const window = options.window ?? 300;
  if (!Number.isInteger(window) || window < 1 || window > MAX_WINDOW) {
    throw new SearchOptionError('window', window, `an integer from 1 to ${MAX_WINDOW}`);
  }
  const bidirectional = options.bidirectional ?? true;
  if (typeof bidirectional !== 'boolean') {
    throw new SearchOptionError('bidirectional', bidirectional, 'True or False');
  }
  return { window, bidirectional };
}

/**
 * Keyword search over a paper set with what is worth keeping between searches (lowercased and
 * folded copies, built lazily). Papers are searched in insertion order.
 */
export class KeywordIndex {
  private readonly papers: PaperEntry[];
  private readonly useWords: boolean;
  private scansLeft: number;
  private words?: WordIndex;

  constructor(texts: PaperTexts, options: KeywordIndexOptions = {}) {
    this.papers = paperEntries(texts).map(([id, text]) => ({ id, text }));
    const total = this.papers.reduce((sum, paper) => sum + paper.text.length, 0);
    this.useWords =
      total >= (options.wordIndexFromChars ?? WORD_INDEX_FROM_CHARS) && total < 2 ** 31;
    this.scansLeft = options.wordIndexAfterSearches ?? WORD_INDEX_AFTER_SEARCHES;
  }

  search(keyword: string, options: KeywordSearchOptions = {}): KeywordSetResult {
    if (keyword.length === 0) throw new EmptyKeywordError();
    const { window, bidirectional } = resolveOptions(options);
    let fuzzy = false;
    let located = this.exact(keyword);
    if (located.length === 0) {
      located = this.folded(keyword);
      if (located.length === 0) located = this.approximate(keyword);
      fuzzy = located.length > 0;
    }
    return { fuzzy, hits: this.snippets(located, window, bidirectional) };
  }

  private exact(keyword: string): Located {
    const needle = lowerKeepingOffsets(keyword);
    const located = new Located();
    if (this.useWords && this.scansLeft-- <= 0) {
      this.words ??= new WordIndex(
        this.papers.map((paper) => (paper.lower ??= lowerKeepingOffsets(paper.text))),
      );
      const found = this.words.occurrences(needle);
      if (found) {
        for (const { text, start } of found) located.push(text, start, start + needle.length);
        return located;
      }
    }
    this.papers.forEach((paper, p) => {
      paper.lower ??= lowerKeepingOffsets(paper.text);
      for (let at = paper.lower.indexOf(needle); at >= 0;) {
        located.push(p, at, at + needle.length);
        at = paper.lower.indexOf(needle, at + needle.length);
      }
    });
    return located;
  }

  /** Stage 1: the keyword and the texts folded alike, matched exactly. */
  private folded(keyword: string): Located {
    const needle = foldText(keyword).text;
    const located = new Located();
    if (needle.trim() === '') return located;
    this.papers.forEach((paper, p) => {
      const folded = (paper.folded ??= foldText(paper.text));
      for (let at = folded.text.indexOf(needle); at >= 0;) {
        const [start, end] = sourceRange(folded, at, at + needle.length);
        located.push(p, start, end);
        at = folded.text.indexOf(needle, at + needle.length);
      }
    });
    return located;
  }

  /** Stage 2: bounded edit distance on the folded texts; only the best distance found is kept. */
  private approximate(keyword: string): Located {
    const needle = foldText(keyword).text.trim();
    const located = new Located();
    if (needle.replace(/\s/g, '').length < MIN_APPROXIMATE_LENGTH) return located;
    const budget = editBudget(needle.length);
    const found: { paper: number; start: number; end: number; distance: number }[] = [];
    this.papers.forEach((paper, p) => {
      const folded = (paper.folded ??= foldText(paper.text));
      for (const match of approximateMatches(folded.text, needle, budget)) {
        const [start, end] = sourceRange(folded, match.start, match.end);
        found.push({ paper: p, start, end, distance: match.distance });
      }
    });
    const best = found.reduce((low, f) => Math.min(low, f.distance), Infinity);
    for (const f of found) if (f.distance === best) located.push(f.paper, f.start, f.end);
    return located;
  }

  private snippets(
    located: Located,
    window: number,
    bidirectional: boolean,
  ): Record<string, KeywordHit[]> {
    const byPaper = new Map<PaperEntry, Span[]>();
    // Hits come paper by paper and in text order, so their snippets mostly do too: each is merged
    // into the last as it is made. A paper whose snippets come out of order is merged by sorting.
    const unordered = new Set<PaperEntry>();
    let current: PaperEntry | undefined;
    let spans: Span[] = [];
    let sentences: SentenceIndex | undefined;
    for (let k = 0; k < located.length; k++) {
      const paper = this.papers[located.paper[k] ?? 0];
      if (!paper) continue;
      if (paper !== current) {
        current = paper;
        spans = byPaper.get(paper) ?? [];
        byPaper.set(paper, spans);
        sentences = paper.sentences ??= indexSentences(paper.text);
      }
      if (!sentences) continue;
      const hit = { start: located.start[k] ?? 0, end: located.end[k] ?? 0 };
      const span = snippetAround(paper.text, sentences, hit, window, bidirectional);
      const last = spans.at(-1);
      if (last === undefined || unordered.has(paper)) spans.push(span);
      else if (span.start < last.start) {
        unordered.add(paper);
        spans.push(span);
      } else if (span.start <= last.end) last.end = Math.max(last.end, span.end);
      else spans.push(span);
    }
    // fromEntries defines own properties, so even a paper id of "__proto__" is safe.
    return Object.fromEntries(
      [...byPaper].map(([paper, spans]) => [
        paper.id,
        (unordered.has(paper) ? mergeSpans(spans) : spans).map(({ start, end }) => ({
          start,
          end,
          text: paper.text.slice(start, end),
        })),
      ]),
    );
  }
}

/** `search(context_dict, keyword, ...)`: snippets grouped by paper, with the fallback flag. */
export function keywordSearchSet(
  texts: PaperTexts,
  keyword: string,
  options: KeywordSearchOptions = {},
): KeywordSetResult {
  return new KeywordIndex(texts).search(keyword, options);
}

/** `search(text, keyword, ...)` on one string; falls back to fuzzy matching like the set search. */
export function keywordSearch(
  text: string,
  keyword: string,
  options: KeywordSearchOptions = {},
): KeywordHit[] {
  const only = new Map([['text', text]]);
  return new KeywordIndex(only).search(keyword, options).hits.text ?? [];
}
