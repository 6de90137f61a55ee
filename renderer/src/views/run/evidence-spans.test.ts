import { describe, expect, it } from 'vitest';
import { answerSpans, locateSpans } from './evidence-spans.ts';

describe('evidence spans', () => {
  it('reads spans from lists of strings or {text}, or a single string', () => {
    expect(answerSpans(['a ', { text: 'b' }, 3, ''])).toEqual(['a', 'b']);
    expect(answerSpans('just one')).toEqual(['just one']);
    expect(answerSpans(null)).toEqual([]);
  });

  it('finds spans exactly, then across line breaks and hyphenation, else reports them unplaced', () => {
    const papers = [
      { id: 'p1', fullText: 'Intro. We use a large\ncorpus of 81.1M papers.' },
      { id: 'p2', fullText: 'Results are state-of-the-\nart on QASPER.' },
    ];
    const located = locateSpans(
      ['a large corpus', 'state-of-the-art on QASPER', 'not in any paper'],
      papers,
    );
    expect(located[0]).toEqual({ text: 'a large corpus', paperId: 'p1', start: 14, end: 28 });
    expect(located[1]?.paperId).toBe('p2');
    expect(papers[1]?.fullText.slice(located[1]?.start, located[1]?.end)).toBe(
      'state-of-the-\nart on QASPER',
    );
    expect(located[2]).toMatchObject({ paperId: null, start: -1 });
  });
});
