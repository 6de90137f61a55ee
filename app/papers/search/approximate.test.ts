// Approximate matching against a plain dynamic programme: Myers (<= 32) and Ukkonen (> 32) must
// report exactly the ends and distances the textbook table gives, and starts of best distance.
import { describe, expect, it } from 'vitest';
import { approximateEnds, approximateMatches, editBudget } from './approximate.ts';

/** Textbook semi-global table: distance of the best match of `pattern` ending at each offset. */
function naiveEnds(text: string, pattern: string, k: number): { end: number; distance: number }[] {
  const m = pattern.length;
  let column = Array.from({ length: m + 1 }, (_, i) => i);
  const ends: { end: number; distance: number }[] = [];
  for (let j = 1; j <= text.length; j++) {
    const next = [0];
    for (let i = 1; i <= m; i++) {
      const cost = pattern[i - 1] === text[j - 1] ? 0 : 1;
      next.push(
        Math.min((column[i - 1] ?? 0) + cost, (column[i] ?? 0) + 1, (next[i - 1] ?? 0) + 1),
      );
    }
    column = next;
    if ((column[m] ?? 0) <= k) ends.push({ end: j, distance: column[m] ?? 0 });
  }
  return ends;
}

function levenshtein(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      next.push(Math.min((row[j - 1] ?? 0) + cost, (row[j] ?? 0) + 1, (next[j - 1] ?? 0) + 1));
    }
    row = next;
  }
  return row[b.length] ?? 0;
}

/** Seeded generator so failures reproduce. */
function generator(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

function randomString(random: () => number, length: number, alphabet: string): string {
  let out = '';
  for (let i = 0; i < length; i++) out += alphabet.charAt(Math.floor(random() * alphabet.length));
  return out;
}

/** A copy of `source` with `edits` random substitutions, insertions or deletions. */
function mutate(random: () => number, source: string, edits: number, alphabet: string): string {
  let out = source;
  for (let e = 0; e < edits; e++) {
    const at = Math.floor(random() * out.length);
    const ch = alphabet.charAt(Math.floor(random() * alphabet.length));
    const kind = Math.floor(random() * 3);
    out = out.slice(0, at) + (kind === 2 ? '' : ch) + out.slice(kind === 1 ? at : at + 1);
  }
  return out;
}

describe('approximateEnds', () => {
  it.each([3, 8, 17, 31, 32, 33, 45, 70])(
    'agrees with the textbook table for patterns of length %i',
    (length) => {
      const random = generator(length);
      for (let round = 0; round < 20; round++) {
        const alphabet = round % 2 === 0 ? 'ab' : 'abcdefgh é';
        const pattern = randomString(random, length, alphabet);
        const k = Math.max(1, Math.floor(length / 5));
        const text =
          randomString(random, 150, alphabet) +
          mutate(random, pattern, k, alphabet) +
          randomString(random, 150, alphabet);
        expect(approximateEnds(text, pattern, k)).toEqual(naiveEnds(text, pattern, k));
      }
    },
  );
});

describe('approximateMatches', () => {
  it('finds a planted match with a start that achieves the reported distance', () => {
    const random = generator(7);
    const alphabet = 'abcdefghijklmnopqrstuvwxyz ';
    for (const length of [6, 12, 30, 40, 90]) {
      const pattern = randomString(random, length, 'abcdefghijklmnopqrstuvwxyz');
      const k = editBudget(length);
      const planted = mutate(random, pattern, k, alphabet);
      const before = randomString(random, 500, alphabet);
      const text = before + planted + randomString(random, 500, alphabet);
      const matches = approximateMatches(text, pattern, k);
      const found = matches.find(
        (m) => m.start < before.length + planted.length && m.end > before.length,
      );
      expect(found, `pattern of ${length}`).toBeDefined();
      for (const match of matches) {
        expect(match.distance).toBeLessThanOrEqual(k);
        expect(levenshtein(pattern, text.slice(match.start, match.end))).toBe(match.distance);
      }
    }
  });

  it('returns disjoint matches in text order, one per occurrence', () => {
    const text = 'a transformr here, the transformer there, and transfomer at the end';
    const matches = approximateMatches(text, 'transformer', 2);
    expect(matches.map((m) => text.slice(m.start, m.end))).toEqual([
      'transformr',
      'transformer',
      'transfomer',
    ]);
    expect(matches.map((m) => m.distance)).toEqual([1, 0, 1]);
  });

  it('finds nothing when every window needs more edits than allowed', () => {
    expect(approximateMatches('completely unrelated words', 'photosynthesis', 2)).toEqual([]);
  });
});

describe('editBudget', () => {
  it('allows one edit per five characters and at least one', () => {
    expect([1, 4, 5, 9, 10, 24, 25].map(editBudget)).toEqual([1, 1, 1, 1, 2, 4, 5]);
  });
});
