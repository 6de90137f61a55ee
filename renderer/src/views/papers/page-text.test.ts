// Page segments and page lookup, including empty pages and text before the first page start.
import { describe, expect, it } from 'vitest';
import { pageOfOffset, pageSegments } from './page-text.ts';

describe('pageSegments', () => {
  it('covers the whole text, one segment per page', () => {
    expect(pageSegments(30, [0, 10, 25])).toEqual([
      { page: 0, start: 0, end: 10 },
      { page: 1, start: 10, end: 25 },
      { page: 2, start: 25, end: 30 },
    ]);
  });

  it('gives leading text to page 0 and empty segments to pages without text', () => {
    expect(pageSegments(20, [4, 12, 12])).toEqual([
      { page: 0, start: 0, end: 12 },
      { page: 1, start: 12, end: 12 },
      { page: 2, start: 12, end: 20 },
    ]);
  });

  it('treats a text without page starts (QASPER) as one page', () => {
    expect(pageSegments(7, [])).toEqual([{ page: 0, start: 0, end: 7 }]);
  });
});

describe('pageOfOffset', () => {
  it('finds the page whose range holds the offset, skipping empty pages', () => {
    const starts = [0, 10, 10, 25];
    expect(pageOfOffset(starts, 0)).toBe(0);
    expect(pageOfOffset(starts, 9)).toBe(0);
    expect(pageOfOffset(starts, 10)).toBe(2);
    expect(pageOfOffset(starts, 24)).toBe(2);
    expect(pageOfOffset(starts, 99)).toBe(3);
  });

  it('answers page 0 when there are no page starts', () => {
    expect(pageOfOffset([], 5)).toBe(0);
  });
});
