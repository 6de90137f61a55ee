import { describe, expect, it } from 'vitest';
import { setSize } from './set-facts.ts';

describe('setSize', () => {
  it('counts papers and pages, and says text only for a set without PDFs', () => {
    expect(setSize({ papers: 2, pages: 28 })).toBe('2 papers · 28 pages');
    expect(setSize({ papers: 1, pages: 1 })).toBe('1 paper · 1 page');
    expect(setSize({ papers: 2, pages: 0 })).toBe('2 papers · text only');
    expect(setSize({ papers: 0, pages: 0 })).toBe('0 papers');
  });
});
