// The fuzzy fallback on real PDF text: hyphenation breaks, ligatures, curly quotes and typos still
// find the passage, results stay exact slices of the source, and unrelated keywords find nothing.
// Fixtures are pdftotext excerpts of CC BY papers (S2ORC, LongEval, PaperMage: CC BY 4.0; Paper
// Plain: CC BY 3.0); see fixtures/README.md.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { keywordSearch, keywordSearchSet, type KeywordSetResult } from './keyword.ts';

const fixture = (name: string): string =>
  readFileSync(new URL(`fixtures/${name}.txt`, import.meta.url), 'utf8');
const papers = {
  s2orc: fixture('s2orc'),
  longeval: fixture('longeval'),
  papermage: fixture('papermage'),
  paperplain: fixture('paperplain'),
};

function expectExactSlices(result: KeywordSetResult): void {
  for (const [id, hits] of Object.entries(result.hits)) {
    const text = papers[id as keyof typeof papers];
    for (const hit of hits) expect(hit.text).toBe(text.slice(hit.start, hit.end));
  }
}

/** The single hit of a fuzzy search, checked to be an exact slice of its paper. */
function onlyHit(keyword: string): { paper: string; text: string } {
  const result = keywordSearchSet(papers, keyword, { window: 100 });
  expect(result.fuzzy, keyword).toBe(true);
  expectExactSlices(result);
  const entries = Object.entries(result.hits);
  expect(entries, keyword).toHaveLength(1);
  const [paper, hits] = entries[0] ?? ['', []];
  expect(hits).toHaveLength(1);
  return { paper, text: hits[0]?.text ?? '' };
}

describe('fuzzy fallback: normalised matching (stage 1)', () => {
  it('finds a word broken by "-\\n" across a blank line (LongEval: "guide-\\n\\nlines")', () => {
    expect(papers.longeval).toContain('guide-\n\nlines on two');
    const hit = onlyHit('guidelines on two long-form summarization datasets');
    expect(hit.paper).toBe('longeval');
    expect(hit.text).toContain(
      'L ONG E VAL guide-\n\nlines on two long-form summarization datasets',
    );
  });

  it('finds words broken across a page in S2ORC ("ta-\\n\\nbles") and PaperMage ("gener- ating")', () => {
    expect(onlyHit('tables for corpus-level results').text).toBe(
      'There is an opportunity to use these ta-\n\nbles for corpus-level results extraction and aggregation.',
    );
    expect(onlyHit('generating labels based on user behaviors').text).toContain(
      'gener- ating labels based on user behaviors',
    );
  });

  it('matches the "ﬁ" ligature and a line break with plain "fi" and a space', () => {
    expect(papers.longeval).toContain('ﬁne-grained annotations?\nHow well');
    const hit = onlyHit('fine-grained annotations? How well');
    expect(hit.text).toContain('ﬁne-grained annotations?\nHow well');
  });

  it('matches curly quotes and dashes with straight ones (Paper Plain)', () => {
    expect(onlyHit('("answer gists")').text).toContain('(“answer gists”)');
    expect(onlyHit('summaries-which we refer to as "gists"').text).toContain(
      'summaries—which we refer to as “gists”',
    );
  });

  it('is not used when any paper has an exact hit', () => {
    // LongEval has "fine-grained annotations" twice: once with the ligature, once without.
    const result = keywordSearchSet(papers, 'fine-grained annotations');
    expect(result.fuzzy).toBe(false);
    expect(result.hits.longeval?.every((h) => !h.text.includes('ﬁne'))).toBe(true);
  });
});

describe('fuzzy fallback: approximate matching (stage 2)', () => {
  it('finds a typo across a hyphenation break', () => {
    const hit = onlyHit('guidlines on two long-form');
    expect(hit.text).toContain('guide-\n\nlines on two long-form');
  });

  it('finds a typo in an unbroken word, and a British spelling', () => {
    expect(onlyHit('citaton intent').text).toContain('classifying citation intent');
    const british = keywordSearchSet(papers, 'faithfulness in long-form summarisation');
    expect(british.fuzzy).toBe(true);
    expectExactSlices(british);
    expect(british.hits.longeval?.[0]?.text).toContain('faithfulness in\nlong-form summarization');
  });

  it('finds words split by small capitals ("G ROBID"-style "L AT E X")', () => {
    const result = keywordSearchSet(papers, 'The LATEX subset', { window: 60 });
    expect(result.fuzzy).toBe(true);
    expectExactSlices(result);
    const hits = result.hits.s2orc ?? [];
    expect(hits.map((h) => /The L AT E X subset \w+/.exec(h.text)?.[0])).toEqual([
      'The L AT E X subset of',
      'The L AT E X subset also',
    ]);
  });

  it('keeps only the best distance found', () => {
    // "word2vek" is one edit from "word2vec"; nothing closer exists.
    const result = keywordSearchSet(papers, 'word2vek');
    expect(result.fuzzy).toBe(true);
    const texts = Object.values(result.hits)
      .flat()
      .map((h) => h.text);
    expect(texts.length).toBeGreaterThan(0);
    for (const text of texts) expect(text.toLowerCase()).toContain('word2vec');
  });

  it('works on a single text too', () => {
    const [hit] = keywordSearch(papers.s2orc, 'paper embedings');
    expect(hit?.text).toContain('paper embeddings');
  });

  it('finds nothing for unrelated keywords and never matches short ones approximately', () => {
    for (const keyword of [
      'photosynthesis',
      'quantum chromodynamics',
      'zebra',
      'mitochondria',
      'qzx',
      'xylo',
    ]) {
      expect(keywordSearchSet(papers, keyword), keyword).toEqual({ fuzzy: false, hits: {} });
    }
  });
});
