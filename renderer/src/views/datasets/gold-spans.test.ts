import { describe, expect, it } from 'vitest';
import {
  EmptySelectionError,
  goldFromSelection,
  goldRanges,
  GoldSpanTakenError,
  questionPapers,
  withGoldSpan,
  withoutGoldSpan,
} from './gold-spans.ts';

const fullText = 'We use a BiLSTM encoder.  It has two layers.';
const head = '### PAPER: Encoders\n<abstract>\nAbout.\n</abstract>\n';
const paper = { id: 'p1', contextText: head + fullText, contextOffset: head.length, fullText };

describe('gold spans on the reader', () => {
  it('turns a selection into a span of the text the REPL sees, edges trimmed', () => {
    const start = fullText.indexOf('It has');
    const span = goldFromSelection(paper, { start: start - 2, end: fullText.length });
    expect(span).toEqual({
      paperId: 'p1',
      start: head.length + start,
      end: head.length + fullText.length,
      text: 'It has two layers.',
    });
    expect(paper.contextText.slice(span.start, span.end)).toBe(span.text);
    expect(() => goldFromSelection(paper, { start: 24, end: 26 })).toThrow(EmptySelectionError);
  });

  it('shows the spans of one paper in full-text offsets, skipping other papers and the head', () => {
    const span = goldFromSelection(paper, { start: 0, end: 6 });
    const inAbstract = { paperId: 'p1', start: 20, end: 30, text: head.slice(20, 30) };
    const other = { ...span, paperId: 'p2' };
    expect(goldRanges([inAbstract, other, span], paper)).toEqual([
      { key: 'gold-2', start: 0, end: 6, tone: 'green' },
    ]);
  });

  it('adds in order, refuses an overlap and removes by index', () => {
    const a = goldFromSelection(paper, { start: 26, end: 44 });
    const b = goldFromSelection(paper, { start: 0, end: 6 });
    const both = withGoldSpan([a], b);
    expect(both.map((g) => g.text)).toEqual(['We use', 'It has two layers.']);
    expect(() => withGoldSpan(both, goldFromSelection(paper, { start: 3, end: 10 }))).toThrow(
      GoldSpanTakenError,
    );
    expect(withGoldSpan(both, { ...b, paperId: 'p0' }).map((g) => g.paperId)).toEqual([
      'p0',
      'p1',
      'p1',
    ]);
    expect(withoutGoldSpan(both, 0)).toEqual([a]);
  });

  it('lists a question’s papers with gold first', () => {
    expect(
      questionPapers({
        paperIds: ['p1', 'p2', 'p3'],
        gold: [{ paperId: 'p3', start: 0, end: 1, text: 'x' }],
      }),
    ).toEqual(['p3', 'p1', 'p2']);
  });
});
