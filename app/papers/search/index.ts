// app/papers/search: the REPL's keyword search (exact, then fuzzy) and ranked passage search for
// the UI. Pure functions over strings: no I/O, no database.
export {
  KeywordIndex,
  WORD_INDEX_FROM_CHARS,
  WORD_INDEX_AFTER_SEARCHES,
  type KeywordIndexOptions,
  keywordSearch,
  keywordSearchSet,
  MIN_APPROXIMATE_LENGTH,
  type KeywordHit,
  type KeywordSearchOptions,
  type KeywordSetResult,
  type PaperTexts,
} from './keyword.ts';
export { EmptyKeywordError, SearchOptionError } from './errors.ts';
export {
  splitPassages,
  PASSAGE_MIN,
  PASSAGE_MAX,
  type Passage,
  type SectionSpan,
} from './passages.ts';
export { RankedIndex, type RankedHit } from './ranked.ts';
export { benchKeywordSearch, type KeywordBenchResult } from './keyword.bench.ts';
export { foldText, sourceRange, type FoldedText } from './normalise.ts';
export { approximateMatches, type ApproximateMatch } from './approximate.ts';
