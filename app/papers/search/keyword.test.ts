// The REPL's exact keyword search: verbatim slices, case-insensitivity, sentence edges, merging,
// grouping by paper and option checks. The fuzzy fallback has its own file (fuzzy.test.ts).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { EmptyKeywordError, SearchOptionError } from './errors.ts';
import { KeywordIndex, keywordSearch, keywordSearchSet, type KeywordHit } from './keyword.ts';

// Real pdftotext output of CC BY papers (see fixtures/README.md).
const fixture = (name: string): string =>
  readFileSync(new URL(`fixtures/${name}.txt`, import.meta.url), 'utf8');
const s2orc = fixture('s2orc');
const longeval = fixture('longeval');

/** Every start offset of `keyword` in `text`, case-insensitively. */
function occurrences(text: string, keyword: string): number[] {
  const lower = text.toLowerCase();
  const needle = keyword.toLowerCase();
  const found: number[] = [];
  for (let at = lower.indexOf(needle); at >= 0; at = lower.indexOf(needle, at + 1)) found.push(at);
  return found;
}

function expectWellFormed(text: string, hits: readonly KeywordHit[]): void {
  hits.forEach((hit, i) => {
    expect(hit.text).toBe(text.slice(hit.start, hit.end));
    if (i > 0) expect(hit.start).toBeGreaterThan(hits[i - 1]?.end ?? -1);
  });
}

describe('keywordSearch (exact)', () => {
  it('returns exact slices covering every occurrence, for many keywords (property)', () => {
    const words = [...s2orc.matchAll(/\S{2,}(?: \S+)?/g)].map((m) => m[0]);
    let checked = 0;
    for (let i = 0; i < words.length; i += 3) {
      const keyword = words[i] ?? '';
      for (const window of [40, 300]) {
        const hits = keywordSearch(s2orc, keyword, { window });
        expectWellFormed(s2orc, hits);
        for (const at of occurrences(s2orc, keyword)) {
          const covering = hits.find((h) => h.start <= at && at + keyword.length <= h.end);
          expect(covering, `'${keyword}' at ${at}`).toBeDefined();
        }
        for (const hit of hits) expect(occurrences(hit.text, keyword).length).toBeGreaterThan(0);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(100);
  });

  it('is case-insensitive and keeps the text as written', () => {
    const [hit] = keywordSearch(s2orc, 'WORD2VEC SKIP-GRAM');
    expect(hit?.text).toContain('word2vec\nskip-gram');
    expect(keywordSearch(s2orc, 'Word2Vec')).toEqual(keywordSearch(s2orc, 'word2vec'));
  });

  it('cuts snippets at sentence boundaries, not at abbreviations', () => {
    const hits = keywordSearch(s2orc, 'bibliometric analysis', { window: 200 });
    expect(hits).toHaveLength(1);
    // The sentence runs through "(Ding\net al., 2014; ...)": "al." does not end it.
    expect(hits[0]?.text).toBe(
      'Citation contexts can also be used for the\nmore general tasks of identifying similar papers\n' +
        '(Kanakia et al., 2019; Eto, 2019; Haruna et al.,\n2018; Small, 1973) or bibliometric analysis ' +
        '(Ding\net al., 2014; Trujillo and Long, 2018; Asatani\net al., 2018).',
    );
  });

  it('merges overlapping snippets so a passage is returned once', () => {
    const text =
      'Alpha beta gamma. The model uses attention and more attention here. Delta epsilon. ' +
      'Much later, far away, '.repeat(30) +
      'a last attention appears.';
    const hits = keywordSearch(text, 'attention', { window: 20 });
    expect(hits.map((h) => h.text)).toEqual([
      'The model uses attention and more attention here.',
      expect.stringMatching(/a last attention appears\.$/),
    ]);
  });

  it('bidirectional=false starts at the hit sentence and looks only forward', () => {
    const text =
      'One sentence before it. Two sentence before it. The keyword sits here. After one. After two.';
    const [forward] = keywordSearch(text, 'keyword', { window: 30, bidirectional: false });
    expect(forward?.text).toBe('The keyword sits here. After one.');
    const [both] = keywordSearch(text, 'keyword', { window: 60 });
    expect(both?.text.startsWith('Two sentence before it.')).toBe(true);
  });

  it('returns nothing, not an error, when a short keyword matches nowhere', () => {
    expect(keywordSearch(s2orc, 'qx')).toEqual([]);
  });

  it('rejects an empty keyword and bad options with named errors', () => {
    expect(() => keywordSearch(s2orc, '')).toThrow(EmptyKeywordError);
    expect(() => keywordSearch(s2orc, 'S2ORC', { window: 0 })).toThrow(SearchOptionError);
    expect(() => keywordSearch(s2orc, 'S2ORC', { window: 2.5 })).toThrow(/window=2.5/);
  });
});

describe('keywordSearchSet', () => {
  it('groups hits by paper, omits papers without hits and reports an exact search', () => {
    const papers = { s2orc, longeval, empty: '' };
    const result = keywordSearchSet(papers, 'human evaluation');
    expect(result.fuzzy).toBe(false);
    expect(Object.keys(result.hits)).toEqual(['longeval']);
    expectWellFormed(longeval, result.hits.longeval ?? []);
    expect(result.hits.longeval?.length).toBeGreaterThan(2);

    const both = keywordSearchSet(new Map(Object.entries(papers)), 'summarization');
    expect(Object.keys(both.hits)).toEqual(['s2orc', 'longeval']);
    expect(both.hits.s2orc?.[0]?.text).toContain('citation context-based paper\nsummarization');
  });

  it('gives the same answers from a reused KeywordIndex as from the plain function', () => {
    const index = new KeywordIndex({ s2orc, longeval });
    for (const keyword of ['S2ORC', 'faithfulness', 'arXiv', 'PubMed']) {
      expect(index.search(keyword, { window: 120 })).toEqual(
        keywordSearchSet({ s2orc, longeval }, keyword, { window: 120 }),
      );
    }
  });

  it('keeps a paper id like "__proto__" as an ordinary key', () => {
    const result = keywordSearchSet({ ['__proto__']: 'A proto paper.' }, 'proto');
    expect(Object.keys(result.hits)).toEqual(['__proto__']);
  });
});
