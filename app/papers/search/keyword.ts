// The REPL's `search(text, keyword, window, bidirectional)` (RLM-SPEC section 2). Invariant: every
// hit's text === source.slice(start, end), so evidence built from snippets stays verbatim. Exact
// case-insensitive matching first; only when no paper has an exact hit, the fuzzy fallback.
import { approximateMatches, editBudget } from './approximate.ts';
import { EmptyKeywordError, SearchOptionError } from './errors.ts';
import { foldText, lowerKeepingOffsets, sourceRange, type FoldedText } from './normalise.ts';
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

interface Located {
  paper: PaperEntry;
  start: number;
  end: number;
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

  constructor(texts: PaperTexts) {
    this.papers = paperEntries(texts).map(([id, text]) => ({ id, text }));
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

  private exact(keyword: string): Located[] {
    const needle = lowerKeepingOffsets(keyword);
    const located: Located[] = [];
    for (const paper of this.papers) {
      paper.lower ??= lowerKeepingOffsets(paper.text);
      for (let at = paper.lower.indexOf(needle); at >= 0;) {
        located.push({ paper, start: at, end: at + needle.length });
        at = paper.lower.indexOf(needle, at + needle.length);
      }
    }
    return located;
  }

  /** Stage 1: the keyword and the texts folded alike, matched exactly. */
  private folded(keyword: string): Located[] {
    const needle = foldText(keyword).text;
    if (needle.trim() === '') return [];
    const located: Located[] = [];
    for (const paper of this.papers) {
      const folded = (paper.folded ??= foldText(paper.text));
      for (let at = folded.text.indexOf(needle); at >= 0;) {
        const [start, end] = sourceRange(folded, at, at + needle.length);
        located.push({ paper, start, end });
        at = folded.text.indexOf(needle, at + needle.length);
      }
    }
    return located;
  }

  /** Stage 2: bounded edit distance on the folded texts; only the best distance found is kept. */
  private approximate(keyword: string): Located[] {
    const needle = foldText(keyword).text.trim();
    if (needle.replace(/\s/g, '').length < MIN_APPROXIMATE_LENGTH) return [];
    const budget = editBudget(needle.length);
    const found: (Located & { distance: number })[] = [];
    for (const paper of this.papers) {
      const folded = (paper.folded ??= foldText(paper.text));
      for (const match of approximateMatches(folded.text, needle, budget)) {
        const [start, end] = sourceRange(folded, match.start, match.end);
        found.push({ paper, start, end, distance: match.distance });
      }
    }
    const best = found.reduce((low, f) => Math.min(low, f.distance), Infinity);
    return found.filter((f) => f.distance === best);
  }

  private snippets(
    located: readonly Located[],
    window: number,
    bidirectional: boolean,
  ): Record<string, KeywordHit[]> {
    const byPaper = new Map<PaperEntry, Span[]>();
    for (const { paper, start, end } of located) {
      const spans = byPaper.get(paper) ?? [];
      paper.sentences ??= indexSentences(paper.text);
      spans.push(snippetAround(paper.text, paper.sentences, { start, end }, window, bidirectional));
      byPaper.set(paper, spans);
    }
    // fromEntries defines own properties, so even a paper id of "__proto__" is safe.
    return Object.fromEntries(
      [...byPaper].map(([paper, spans]) => [
        paper.id,
        mergeSpans(spans).map(({ start, end }) => ({
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
