// Folding for the fuzzy fallback: what folds alike, and that folded offsets map back exactly.
import { describe, expect, it } from 'vitest';
import { foldText, lowerKeepingOffsets, sourceRange } from './normalise.ts';

describe('foldText', () => {
  it('folds case, whitespace runs, ligatures, accents, quotes and dashes', () => {
    expect(foldText('The  \n ﬁnal “Eﬀect” – Müller’s ﬂow').text).toBe(
      'the final "effect" - muller\'s flow',
    );
  });

  it('joins words broken by a hyphen at a line end, with or without a blank line', () => {
    for (const broken of [
      'repre-\nsentation',
      'repre- sentation',
      'repre-\n\n  sentation',
      'repre\u00ad\nsentation',
    ]) {
      expect(foldText(broken).text).toBe('representation');
    }
    expect(foldText('fine-grained').text).toBe(foldText('finegrained').text);
    // Not between letters: kept.
    expect(foldText('pages 3-5, x - y').text).toBe('pages 3-5, x - y');
  });

  it('maps every folded character back to the source character it came from', () => {
    const source = 'A  ﬁne-\n\ngrained “Test” İ𝐀';
    const folded = foldText(source);
    expect(folded.from).toHaveLength(folded.text.length);
    for (let j = 0; j < folded.text.length; j++) {
      const original = source.slice(folded.from[j], folded.to[j]);
      expect(original.length).toBeGreaterThan(0);
    }
    const at = folded.text.indexOf('finegrained');
    const [start, end] = sourceRange(folded, at, at + 'finegrained'.length);
    expect(source.slice(start, end)).toBe('ﬁne-\n\ngrained');
    const inner = folded.text.indexOf('ine');
    const [ligStart] = sourceRange(folded, inner, inner + 3);
    expect(source.slice(ligStart, ligStart + 1)).toBe('ﬁ'); // never half a ligature
  });

  it('rejects an empty or out-of-range folded range', () => {
    const folded = foldText('abc');
    expect(() => sourceRange(folded, 2, 2)).toThrow(RangeError);
    expect(() => sourceRange(folded, 1, 9)).toThrow(RangeError);
  });
});

describe('lowerKeepingOffsets', () => {
  it('lowercases without changing length, even where toLowerCase would', () => {
    const text = 'İstanbul ABC';
    expect('İ'.toLowerCase()).toHaveLength(2);
    const lower = lowerKeepingOffsets(text);
    expect(lower).toHaveLength(text.length);
    expect(lower.slice(1)).toBe('stanbul abc');
  });
});
