// Ranked passage search for the UI: BM25 over passages through minisearch, with prefix matching for
// words being typed and light fuzziness for typos. Hits carry the passage's exact offsets; the
// snippet is a verbatim slice of the passage around the first matched term.
import MiniSearch from 'minisearch';
import type { Passage } from './passages.ts';

export interface RankedHit {
  paperId: string;
  start: number;
  end: number;
  score: number;
  /** A verbatim slice of the passage, about SNIPPET_LENGTH characters, around the best term. */
  snippet: string;
  section?: string;
}

interface IndexedPassage {
  id: number;
  text: string;
  section: string;
}

const SNIPPET_LENGTH = 240;
/** Terms this short are only matched exactly; longer ones also as prefixes and with typos. */
const MIN_PREFIX = 3;
const MIN_FUZZY = 5;

/** Lowercase and fold ligatures and accents, so "ﬁne" and "fine" are one term. */
function processTerm(term: string): string | null {
  const folded = term.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();
  return folded === '' ? null : folded;
}

/** Moves `at` by at most 20 characters in `step` direction to just past a whitespace. */
function wordEdge(text: string, at: number, step: 1 | -1): number {
  for (let i = at, moved = 0; i > 0 && i < text.length && moved < 20; i += step, moved++) {
    if (/\s/.test(text.charAt(step === 1 ? i : i - 1))) return i;
  }
  return at;
}

function snippetOf(text: string, terms: readonly string[]): string {
  if (text.length <= SNIPPET_LENGTH) return text;
  const lower = text.toLowerCase();
  const positions = terms.map((t) => lower.indexOf(t)).filter((at) => at >= 0);
  const first = positions.length > 0 ? Math.min(...positions) : 0;
  const from = Math.max(0, Math.min(first - SNIPPET_LENGTH / 4, text.length - SNIPPET_LENGTH));
  const start = from > 0 ? wordEdge(text, from, -1) : 0;
  const end = Math.min(text.length, wordEdge(text, start + SNIPPET_LENGTH, 1));
  return text.slice(start, end).trimEnd();
}

export class RankedIndex {
  private readonly passages: readonly Passage[];
  private readonly index: MiniSearch<IndexedPassage>;

  constructor(passages: readonly Passage[]) {
    this.passages = passages;
    this.index = new MiniSearch<IndexedPassage>({
      fields: ['text', 'section'],
      processTerm,
      searchOptions: {
        boost: { section: 0.5 },
        prefix: (term) => term.length >= MIN_PREFIX,
        fuzzy: (term) => (term.length >= MIN_FUZZY ? 0.2 : false),
        maxFuzzy: 2,
        weights: { prefix: 0.5, fuzzy: 0.3 },
      },
    });
    this.index.addAll(passages.map((p, id) => ({ id, text: p.text, section: p.section ?? '' })));
  }

  /** The best `limit` passages for `query`, highest score first; none for a blank query. */
  search(query: string, limit = 20): RankedHit[] {
    if (query.trim() === '') return [];
    const hits: RankedHit[] = [];
    for (const result of this.index.search(query)) {
      const id: unknown = result.id;
      const passage = typeof id === 'number' ? this.passages[id] : undefined;
      if (passage === undefined) continue;
      const hit: RankedHit = {
        paperId: passage.paperId,
        start: passage.start,
        end: passage.end,
        score: result.score,
        snippet: snippetOf(passage.text, result.terms),
      };
      if (passage.section !== undefined) hit.section = passage.section;
      hits.push(hit);
      if (hits.length >= limit) break;
    }
    return hits;
  }
}
