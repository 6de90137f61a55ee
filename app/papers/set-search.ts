// Search over one paper set, built lazily and cached until the set changes: the REPL's keyword
// index, the BM25 passage index for the UI, and the map of its passages.
import type { KeywordSetResult, KeywordSearchOptions } from './search/index.ts';
import {
  KeywordIndex,
  RankedIndex,
  splitPassages,
  type Passage,
  type RankedHit,
} from './search/index.ts';
import { mapPassages, type PassageMap } from './map/index.ts';
import type { PaperLibrary } from './library.ts';

interface SetIndexes {
  keyword: KeywordIndex;
  passages: Passage[];
  ranked?: RankedIndex;
  map?: PassageMap;
}

export class SetSearch {
  readonly #library: PaperLibrary;
  readonly #cache = new Map<string, SetIndexes>();

  constructor(library: PaperLibrary) {
    this.#library = library;
  }

  /** Drops what was built for a set (call after it changes). */
  invalidate(set: string): void {
    this.#cache.delete(set);
  }

  #indexes(set: string): SetIndexes {
    let indexes = this.#cache.get(set);
    if (!indexes) {
      const texts = this.#library.store.texts(set);
      const passages = texts.flatMap((paper) => {
        const sections = this.#library.store.getPaper(set, paper.id).sectionList;
        return splitPassages(paper.id, paper.fullText, sections);
      });
      indexes = {
        // Kept until the set changes, so the word index is worth building on the first search.
        keyword: new KeywordIndex(new Map(texts.map((paper) => [paper.id, paper.fullText])), {
          wordIndexAfterSearches: 0,
        }),
        passages,
      };
      this.#cache.set(set, indexes);
    }
    return indexes;
  }

  /** The set's passages; the same array until the set changes (callers may key caches on it). */
  passages(set: string): readonly Passage[] {
    return this.#indexes(set).passages;
  }

  keyword(set: string, keyword: string, options: KeywordSearchOptions = {}): KeywordSetResult {
    return this.#indexes(set).keyword.search(keyword, options);
  }

  ranked(set: string, query: string, limit: number): RankedHit[] {
    const indexes = this.#indexes(set);
    indexes.ranked ??= new RankedIndex(indexes.passages);
    return indexes.ranked.search(query, limit);
  }

  map(set: string): PassageMap {
    const indexes = this.#indexes(set);
    indexes.map ??= mapPassages(indexes.passages);
    return indexes.map;
  }
}
