// Timing of the REPL keyword search for the benchmark script (issue 3: median under 2 ms over a
// 10-paper set for an exact hit). Not a test: timings are reported, never asserted here.
// Keywords are picked deterministically from the texts, so runs on the same set are comparable.
import { KeywordIndex, paperEntries, type PaperTexts } from './keyword.ts';
import { mulberry32 } from '../../random/mulberry32.ts';

export interface KeywordBenchResult {
  /** Median ms of one search whose keyword occurs exactly, on an index already built. */
  exact_p50_ms: number;
  /** Median ms of one search that needs the fallback (a keyword with a typo). */
  fuzzy_p50_ms: number;
  /** Median ms of the first search on a fresh index (lowercasing included), for an exact hit. */
  cold_exact_p50_ms: number;
  /** ms of the first fallback search on an index, which folds every text once. */
  first_fuzzy_ms: number;
  exact_queries: number;
  fuzzy_queries: number;
}

const WORD = /\p{L}{5,}/gu;

function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] ?? Number.NaN)
    : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

/** Words and two-word phrases sampled at random positions of the texts. */
function sampleKeywords(texts: readonly string[], count: number, random: () => number): string[] {
  const words = texts.flatMap((t) => t.match(WORD) ?? []);
  const keywords: string[] = [];
  for (let i = 0; i < count && words.length > 1; i++) {
    const at = Math.floor(random() * (words.length - 1));
    const word = words[at] ?? '';
    keywords.push(i % 3 === 2 ? `${word} ${words[at + 1] ?? ''}`.trim() : word);
  }
  return keywords;
}

/** Swaps two neighbouring letters in the middle of the keyword: the commonest typo. */
function withTypo(keyword: string): string {
  const i = Math.floor(keyword.length / 2);
  return keyword.slice(0, i - 1) + keyword.charAt(i) + keyword.charAt(i - 1) + keyword.slice(i + 1);
}

function time(run: () => void): number {
  const begin = performance.now();
  run();
  return performance.now() - begin;
}

export function benchKeywordSearch(texts: PaperTexts, queries = 200): KeywordBenchResult {
  const values = paperEntries(texts).map(([, text]) => text);
  const random = mulberry32(20260101);
  const exactKeywords = sampleKeywords(values, queries, random);
  const index = new KeywordIndex(texts);

  const cold = exactKeywords.slice(0, 20).map((k) => time(() => new KeywordIndex(texts).search(k)));
  for (const keyword of exactKeywords.slice(0, 20)) index.search(keyword); // warm up the JIT
  const exact = exactKeywords.map((k) => time(() => index.search(k)));

  // Typo keywords that really miss exactly, so each timing includes the whole fallback.
  const lowered = values.map((text) => text.toLowerCase());
  const fuzzyKeywords = sampleKeywords(values, queries, random)
    .filter((k) => k.length >= 6)
    .map(withTypo)
    .filter((k) => lowered.every((text) => !text.includes(k.toLowerCase())))
    .slice(0, Math.max(10, Math.floor(queries / 4)));
  const first = fuzzyKeywords[0];
  const firstFuzzy = first === undefined ? Number.NaN : time(() => index.search(first));
  const fuzzy = fuzzyKeywords.map((k) => time(() => index.search(k)));

  return {
    exact_p50_ms: median(exact),
    fuzzy_p50_ms: median(fuzzy),
    cold_exact_p50_ms: median(cold),
    first_fuzzy_ms: firstFuzzy,
    exact_queries: exact.length,
    fuzzy_queries: fuzzy.length,
  };
}
