// RankedIndex (BM25 through minisearch) over passages of real paper text.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { splitPassages } from './passages.ts';
import { RankedIndex } from './ranked.ts';

// Real pdftotext output of CC BY papers (see fixtures/README.md).
const names = ['s2orc', 'longeval', 'papermage', 'paperplain'];
const texts = new Map(
  names.map((n) => [n, readFileSync(new URL(`fixtures/${n}.txt`, import.meta.url), 'utf8')]),
);
const passages = [...texts].flatMap(([id, text]) => splitPassages(id, text));
const index = new RankedIndex(passages);

describe('RankedIndex', () => {
  it('ranks the passage containing a rare term first', () => {
    const [first] = index.search('word2vec embeddings');
    const text = texts.get(first?.paperId ?? '') ?? '';
    expect(first?.paperId).toBe('s2orc');
    expect(text.slice(first?.start, first?.end)).toContain('word2vec');
    expect(first?.snippet).toContain('word2vec');
  });

  it('returns exact passage offsets and verbatim snippets, best first, up to the limit', () => {
    const hits = index.search('summarization faithfulness', 5);
    expect(hits).toHaveLength(5);
    for (const [i, hit] of hits.entries()) {
      const passage = texts.get(hit.paperId)?.slice(hit.start, hit.end) ?? '';
      expect(passages.some((p) => p.paperId === hit.paperId && p.start === hit.start)).toBe(true);
      expect(passage).toContain(hit.snippet);
      if (i > 0) expect(hit.score).toBeLessThanOrEqual(hits[i - 1]?.score ?? Infinity);
    }
  });

  it('matches prefixes while typing and tolerates a typo in a long word', () => {
    expect(index.search('crowdsourc')[0]?.paperId).toBe('papermage');
    expect(index.search('demoralzing')[0]?.paperId).toBe('paperplain');
  });

  it('folds ligatures so "fine-grained" finds the "ﬁne-grained" passage too', () => {
    const ligature = passages.find((p) => p.text.includes('ﬁne-grained'));
    const hits = index.search('fine grained annotations', 50);
    expect(hits.some((h) => h.start === ligature?.start && h.paperId === ligature.paperId)).toBe(
      true,
    );
  });

  it('carries the section of the passage, and answers a blank query with nothing', () => {
    const sectioned = new RankedIndex(
      splitPassages('x', 'Intro text here.\n\nAttention is what we study.', [
        { title: '1 Introduction', start: 0, end: 48 },
      ]),
    );
    expect(sectioned.search('attention')[0]?.section).toBe('1 Introduction');
    expect(index.search('   ')).toEqual([]);
    expect(index.search('zzzzqqqq')).toEqual([]);
  });
});
