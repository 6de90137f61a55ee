// splitPassages: exact offsets, full coverage, sizes, section breaks and titles.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PASSAGE_MAX, PASSAGE_MIN, splitPassages, type Passage } from './passages.ts';

// Real pdftotext output of CC BY papers (see fixtures/README.md).
const fixture = (name: string): string =>
  readFileSync(new URL(`fixtures/${name}.txt`, import.meta.url), 'utf8');

function expectCovers(text: string, passages: readonly Passage[]): void {
  let previousEnd = 0;
  for (const p of passages) {
    expect(p.text).toBe(text.slice(p.start, p.end));
    expect(p.start).toBeGreaterThanOrEqual(previousEnd);
    // Only whitespace is left between passages.
    expect(text.slice(previousEnd, p.start).trim()).toBe('');
    previousEnd = p.end;
  }
  expect(text.slice(previousEnd).trim()).toBe('');
}

describe('splitPassages', () => {
  it.each(['s2orc', 'longeval', 'papermage', 'paperplain'])(
    'covers the %s excerpt with exact, ordered, bounded passages',
    (name) => {
      const text = fixture(name);
      const passages = splitPassages(name, text);
      expectCovers(text, passages);
      for (const p of passages) {
        expect(p.paperId).toBe(name);
        expect(p.end - p.start).toBeLessThanOrEqual(PASSAGE_MAX);
        expect(p.text).toBe(p.text.trim());
      }
      const short = passages.filter((p) => p.end - p.start < PASSAGE_MIN);
      expect(short.length).toBeLessThanOrEqual(1);
    },
  );

  it('splits a long paragraph at sentence ends and an unpunctuated run at spaces', () => {
    const sentence = 'This sentence is about forty characters. ';
    const text = `${sentence.repeat(80)}\n\n${'token '.repeat(600)}`;
    const passages = splitPassages('p', text);
    expectCovers(text, passages);
    for (const p of passages) expect(p.end - p.start).toBeLessThanOrEqual(PASSAGE_MAX);
    const prose = passages.filter((p) => p.text.startsWith('This'));
    expect(prose.length).toBeGreaterThan(2);
    for (const p of prose) expect(p.text.endsWith('characters.')).toBe(true);
  });

  it('breaks at section starts and attaches the innermost section title', () => {
    const intro = 'Introduction\n\nWe study things. '.padEnd(600, 'More words here. ');
    const method = '2 Method\n\nWe do things. '.padEnd(500, 'Detail upon detail. ');
    const data = '2.1 Data\n\nThe data. '.padEnd(450, 'Rows and rows. ');
    const text = intro + method + data;
    const sections = [
      { title: 'Introduction', start: 0, end: intro.length },
      { title: '2 Method', start: intro.length, end: text.length },
      { title: '2.1 Data', start: intro.length + method.length, end: text.length },
    ];
    const passages = splitPassages('p', text, sections);
    expectCovers(text, passages);
    expect(passages.map((p) => p.section)).toEqual(['Introduction', '2 Method', '2.1 Data']);
    expect(passages[1]?.start).toBe(intro.length);
    expect(passages[2]?.start).toBe(intro.length + method.length);
  });

  it('returns no passages for empty or blank text, and leaves section off when none covers', () => {
    expect(splitPassages('p', '')).toEqual([]);
    expect(splitPassages('p', ' \n\n \t')).toEqual([]);
    const [only] = splitPassages('p', 'One short passage.', [{ title: 'Later', start: 5, end: 9 }]);
    expect(only).toEqual({ paperId: 'p', start: 0, end: 5, text: 'One s' });
  });
});
