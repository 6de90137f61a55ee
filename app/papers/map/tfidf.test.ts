// TF-IDF vectors: tokenisation rules, unit length, sorted term ids and idf ordering.
import { describe, expect, it } from 'vitest';
import { tfidfVectors, tokenise } from './tfidf.ts';

describe('tokenise', () => {
  it('lowercases, folds ligatures and accents, drops stop words, short tokens and numbers', () => {
    expect(tokenise('The ﬁne Müller-Lyer model of 2019 is at BERT’s core, e.g. x2 vs. t5')).toEqual(
      ['fine', 'muller', 'lyer', 'model', 'bert', 'core'],
    );
  });
});

describe('tfidfVectors', () => {
  it('gives unit vectors with ascending term ids over a sorted vocabulary', () => {
    const { vocabulary, vectors } = tfidfVectors([
      'attention attention heads',
      'attention layers',
      '',
    ]);
    expect(vocabulary).toEqual(['attention', 'heads', 'layers']);
    const [first, , empty] = vectors;
    expect([...(first?.terms ?? [])]).toEqual([0, 1]);
    const norm = Math.hypot(...(first?.weights ?? []));
    expect(norm).toBeCloseTo(1, 12);
    expect(empty?.terms).toHaveLength(0);
  });

  it('weights a rare term above a common one, and repeats sublinearly', () => {
    const { vectors } = tfidfVectors(['common rare rare rare rare', 'common other', 'common more']);
    const [w] = vectors;
    const common = w?.weights[0] ?? 0; // "common" sorts before "rare"
    const rare = w?.weights[1] ?? 0;
    expect(rare).toBeGreaterThan(common);
    // Sublinear: 4 occurrences weigh 1 + ln 4 (not 4) times one, times the smoothed idf ratio.
    const idf = (df: number): number => Math.log(4 / (1 + df)) + 1;
    expect(rare / common).toBeCloseTo(((1 + Math.log(4)) * idf(1)) / idf(3), 10);
  });
});
