// Span location: each step on text built to need it, the line-boundary preference, per-span
// methods and similarities, and what stays unlocated.
import { describe, expect, it } from 'vitest';
import { locateSpan, PaperIndex } from './locate.ts';
import { evidencePaper } from './paper-text.ts';

const body = [
  'Introduction',
  'We study Results of models. The representation of words is learned from context.',
  '',
  'Results',
  'Our model reaches 91.2 F1 on SQuAD [12], improving over the baseline by 3 points.',
  '',
  'The efﬁcient encoder uses a repre-',
  'sentation   of SENTENCES  that is fine-tuned.',
].join('\n');
const paper = evidencePaper('p1', 'A Paper', 'We present a model.', body);
const index = new PaperIndex(paper);

function slice(location: { start: number; end: number } | null): string | null {
  return location ? paper.text.slice(location.start, location.end) : null;
}

describe('PaperIndex.locate', () => {
  it('finds exact spans, preferring an occurrence that is a whole line', () => {
    const results = index.locate('Results');
    expect(results?.method).toBe('exact');
    expect(results?.similarity).toBe(1);
    // "Results" first occurs inside a sentence; the heading line wins.
    expect(results?.start).toBe(paper.text.indexOf('\nResults\n') + 1);
    expect(slice(index.locate('Our model reaches 91.2 F1'))).toBe('Our model reaches 91.2 F1');
  });

  it('normalises case, whitespace, line-end hyphenation and ligatures', () => {
    const found = index.locate('the efficient encoder uses a representation of sentences');
    expect(found?.method).toBe('normalised');
    expect(slice(found)).toBe('The efﬁcient encoder uses a repre-\nsentation   of SENTENCES');
    expect(index.locate('  FINE-TUNED. ')?.method).toBe('normalised');
  });

  it('cuts S2ORC placeholders and LaTeX out and finds the pieces in order', () => {
    const found = index.locate(
      'Our model reaches 91.2 F1 on SQuAD BIBREF12, improving over the baseline by $3$ points.',
    );
    expect(found?.method).toBe('placeholders');
    expect(slice(found)).toBe(
      'Our model reaches 91.2 F1 on SQuAD [12], improving over the baseline by 3 points.',
    );
    // Pieces out of order are not a match.
    expect(index.placeholders('improving over the baseline BIBREF1 Our model reaches')).toBeNull();
  });

  it('aligns approximately above the threshold and reports the similarity', () => {
    const found = index.locate(
      'Our modle reaches 91.2 F1 on SQuDA [12], improving over teh baseline',
    );
    expect(found?.method).toBe('approximate');
    expect(found?.similarity).toBeGreaterThan(0.85);
    expect(found?.similarity).toBeLessThan(1);
    expect(slice(found)?.startsWith('Our mod')).toBe(true);
    expect(index.locate('Completely different words that are nowhere in this paper')).toBeNull();
    expect(index.locate('Our modle reaches 91.2 F1 on SQuDA', { approximate: false })).toBeNull();
    // A stricter threshold rejects what a looser one accepts.
    const span = 'Our mdl rches 91.2 F1 on SQuAD, imprving ovr the baseline';
    expect(index.locate(span, { threshold: 0.8 })).not.toBeNull();
    expect(index.locate(span, { threshold: 0.95 })).toBeNull();
  });

  it('aligns long spans by anchors past a footnote and different citations', () => {
    const pdf = evidencePaper(
      'pdf',
      'T',
      '',
      'Setup\nRepresentations are applied to six classifica-\ntion tasks: paraphrase identification (MSRP)\n' +
        '(Dolan et al., 2004), movie review sentiment (MR) (Pang and Lee, 2005) and question\n' +
        '1 See the contrasting conclusions in (Mitchell and Lapata, 2008) among others.\n\n' +
        'type classification (TREC) (Voorhees, 2002). We follow the procedure of Kiros et al. (2015):\n' +
        'a logistic regression classifier is trained on top of the sentence representations.\nNext section',
    );
    const span =
      'Representations are applied to six classification tasks: paraphrase identification (MSRP) BIBREF30 , ' +
      'movie review sentiment (MR) BIBREF31 and question type classification (TREC) BIBREF35 . We follow ' +
      'the procedure of kiros2015skip: a logistic regression classifier is trained on top of the sentence representations.';
    const found = new PaperIndex(pdf).locate(span);
    expect(found?.method).toBe('approximate');
    expect(found?.similarity).toBeGreaterThan(0.85);
    const text = pdf.text.slice(found?.start, found?.end);
    expect(text.startsWith('Representations are applied')).toBe(true);
    expect(text.endsWith('sentence representations.')).toBe(true);
    // Most of it elsewhere: below the threshold, unlocated.
    expect(
      new PaperIndex(pdf).locate(
        'Representations are applied to six classification tasks, then something else entirely happens in a long tail that this paper never says at all.',
      ),
    ).toBeNull();
  });

  it('strips QASPER caption markers and rejects empty spans', () => {
    const withCaption = evidencePaper('p2', 'T', '', 'Table 1: Scores of all models.');
    expect(
      new PaperIndex(withCaption).locate('FLOAT SELECTED: Table 1: Scores of all models.'),
    ).toMatchObject({ method: 'exact', start: withCaption.offset });
    expect(index.locate('   ')).toBeNull();
  });
});

describe('locateSpan', () => {
  const other = new PaperIndex(
    evidencePaper('p2', 'Other', '', 'A representation of sentences appears here too.'),
  );

  it('uses the named paper only', () => {
    expect(locateSpan([index, other], { paperId: 'p2', text: 'appears here' })?.paperId).toBe('p2');
    expect(locateSpan([index, other], { paperId: 'p2', text: 'Our model reaches' })).toBeNull();
  });

  it('for a bare string takes the most direct method over all papers', () => {
    // Exact in p2, only normalised in p1.
    const found = locateSpan([index, other], { text: 'representation of sentences' });
    expect(found).toMatchObject({ paperId: 'p2', method: 'exact' });
    expect(locateSpan([index, other], { text: 'uses a representation' })).toMatchObject({
      paperId: 'p1',
      method: 'normalised',
    });
  });
});
