// Sentence boundaries and snippet edges: what ends a sentence in PDF text and what does not.
import { describe, expect, it } from 'vitest';
import { boundariesIn, indexSentences, mergeSpans, snippetAround, type Span } from './sentences.ts';

function snippet(text: string, hit: Span, window: number, bidirectional = true): string {
  const span = snippetAround(text, indexSentences(text), hit, window, bidirectional);
  return text.slice(span.start, span.end);
}

/** The text of each sentence start found in `text`. */
function startsOf(text: string): string[] {
  return boundariesIn(text, 0, text.length).map((b) => text.slice(b.start, b.start + 6));
}

describe('indexSentences', () => {
  it('finds the same boundaries as a scan of the whole text, sorted', () => {
    const text = 'One. Two? Three!\n\nFour e.g. five. Six';
    const index = indexSentences(text);
    const scanned = boundariesIn(text, 0, text.length);
    expect([...index.starts]).toEqual(scanned.map((b) => b.start));
    expect([...index.ends]).toEqual(scanned.map((b) => b.end));
    expect([...index.starts].map((s) => text.slice(s, s + 3))).toEqual([
      'Two',
      'Thr',
      'Fou',
      'Six',
    ]);
  });
});

describe('boundariesIn', () => {
  it('ends sentences at . ! ? followed by whitespace, past closing quotes and brackets', () => {
    const text = 'It works. Really! Does it? He said "yes." Then (it ended.) Done';
    expect(startsOf(text)).toEqual(['Really', 'Does i', 'He sai', 'Then (', 'Done']);
    const [first] = boundariesIn(text, 0, text.length);
    expect(text.slice(0, first?.end)).toBe('It works.');
  });

  it('does not end sentences at abbreviations, initials, decimals or before lowercase', () => {
    const text =
      'As Fig. 3 and Eq. 2 show, e.g. here, i.e. there, and as Lo et al. (2020) and J. Smith ' +
      'found (Sec. 4), we gain 3.5 points. vs. a lowercase continuation. Next sentence';
    expect(startsOf(text)).toEqual(['Next s']);
  });

  it('ends a sentence at a blank line, trimming the whitespace around it', () => {
    const text = 'A heading without a dot\n  \n\nThe body starts here.';
    const [blank] = boundariesIn(text, 0, text.length);
    expect(text.slice(0, blank?.end)).toBe('A heading without a dot');
    expect(text.slice(blank?.start)).toBe('The body starts here.');
  });

  it('treats a single newline as a line break inside a sentence', () => {
    expect(boundariesIn('a line that\nwraps on', 0, 20)).toEqual([]);
  });
});

describe('snippetAround', () => {
  const text =
    'First sentence is here. Second sentence holds the KEYWORD in it. Third one follows. ' +
    'Fourth is the last.';
  const at = text.indexOf('KEYWORD');

  const hit = { start: at, end: at + 7 };

  it('widens or trims to whole sentences around the hit', () => {
    expect(snippet(text, hit, 20)).toBe('Second sentence holds the KEYWORD in it.');
    // 40 characters either side: the nearest edges are the text's start and end.
    expect(snippet(text, hit, 80)).toBe(text);
  });

  it('forward only: starts at the hit sentence and runs on after it', () => {
    expect(snippet(text, hit, 30, false)).toBe(
      'Second sentence holds the KEYWORD in it. Third one follows.',
    );
  });

  it('never cuts into the hit, even when the hit spans a boundary', () => {
    const start = text.indexOf('here. Second');
    const across = { start, end: start + 12 };
    const span = snippetAround(text, indexSentences(text), across, 10, true);
    expect(span.start).toBeLessThanOrEqual(across.start);
    expect(span.end).toBeGreaterThanOrEqual(across.end);
  });

  it('falls back to word edges inside a sentence too long to reach an end', () => {
    const long = `${'word '.repeat(200)}HIT ${'more '.repeat(200)}`;
    const start = long.indexOf('HIT');
    const cut = snippet(long, { start, end: start + 3 }, 50);
    expect(cut).toMatch(/^word .* more$/);
    expect(cut.length).toBeLessThan(80);
  });
});

describe('mergeSpans', () => {
  it('unions overlapping and touching spans and keeps disjoint ones apart', () => {
    expect(
      mergeSpans([
        { start: 10, end: 20 },
        { start: 0, end: 5 },
        { start: 15, end: 30 },
        { start: 30, end: 31 },
        { start: 40, end: 41 },
      ]),
    ).toEqual([
      { start: 0, end: 5 },
      { start: 10, end: 31 },
      { start: 40, end: 41 },
    ]);
  });
});
