// The word index finds exactly what a scan finds: the same hits for whole words, word pieces,
// phrases and punctuation on real extraction noise, and for overlapping and non-ASCII cases.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../random/mulberry32.ts';
import { KeywordIndex, WORD_INDEX_AFTER_SEARCHES } from './keyword.ts';
import { WordIndex } from './word-index.ts';

const fixture = (name: string): string =>
  readFileSync(new URL(`fixtures/${name}.txt`, import.meta.url), 'utf8');
const texts = new Map([
  ['s2orc', fixture('s2orc')],
  ['longeval', fixture('longeval')],
  ['odd', 'aaaa aa Straße STRASSE İstanbul naïve co-operate (see Fig. 3) e.g. x-ray 3.5%'],
]);

describe('WordIndex', () => {
  it('finds overlapping candidates as a left-to-right scan does', () => {
    const index = new WordIndex(['aaaa aa', 'baaa']);
    expect(index.occurrences('aa')).toEqual([
      { text: 0, start: 0 },
      { text: 0, start: 2 },
      { text: 0, start: 5 },
      { text: 1, start: 1 },
    ]);
    expect(index.occurrences('a a')).toEqual([{ text: 0, start: 3 }]);
    expect(index.occurrences('--')).toBeUndefined();
  });

  it('gives the same search results as the scan for many keywords (property)', () => {
    const scan = new KeywordIndex(texts, { wordIndexFromChars: Infinity });
    const indexed = new KeywordIndex(texts, { wordIndexFromChars: 0, wordIndexAfterSearches: 0 });
    const all = [...texts.values()].join('\n');
    const random = mulberry32(11);
    const keywords = [
      'aa',
      'a a',
      'İstanbul',
      'straße',
      'naïve',
      '(see',
      'fig. 3)',
      'e.g.',
      '3.5%',
    ];
    for (let n = 0; n < 600; n++) {
      const at = Math.floor(random() * (all.length - 30));
      keywords.push(all.slice(at, at + 1 + Math.floor(random() * 24)));
    }
    let compared = 0;
    for (const keyword of keywords) {
      if (keyword.trim() === '') continue;
      for (const bidirectional of [true, false]) {
        expect(indexed.search(keyword, { bidirectional, window: 120 })).toEqual(
          scan.search(keyword, { bidirectional, window: 120 }),
        );
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(1000);
  });

  it('is built only after WORD_INDEX_AFTER_SEARCHES scans unless asked at once', () => {
    const built = (index: KeywordIndex): boolean =>
      (index as unknown as { words?: WordIndex }).words !== undefined;
    const later = new KeywordIndex(texts, { wordIndexFromChars: 0 });
    const first = later.search('retrieval');
    for (let n = 1; n < WORD_INDEX_AFTER_SEARCHES; n++) later.search('retrieval');
    expect(built(later)).toBe(false);
    expect(later.search('retrieval')).toEqual(first);
    expect(built(later)).toBe(true);
    const now = new KeywordIndex(texts, { wordIndexFromChars: 0, wordIndexAfterSearches: 0 });
    now.search('retrieval');
    expect(built(now)).toBe(true);
  });
});
