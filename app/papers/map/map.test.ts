// mapPassages: deterministic, bounded, separates topics, and copes with degenerate sets.
import { describe, expect, it } from 'vitest';
import type { Passage } from '../search/index.ts';
import { MAP_METHOD, PREVIEW_LENGTH, mapDenseVectors, mapPassages, previewOf } from './map.ts';
import { mulberry32 } from '../../random/mulberry32.ts';

function passage(paperId: string, text: string, start = 0): Passage {
  return { paperId, start, end: start + text.length, text };
}

const cooking = [
  'Whisk the eggs with sugar and butter, then fold in the flour and bake the cake in the oven.',
  'Simmer the tomato sauce with garlic and basil; season with salt and pepper before serving pasta.',
  'Knead the dough, let the bread rise, and bake it in a hot oven until the crust turns golden.',
  'Roast the chicken with garlic, lemon and thyme; baste with butter and rest before carving.',
  'Chop onions and garlic, fry them in olive oil, add the tomato and simmer the soup slowly.',
  'Melt the butter and sugar, stir in the eggs and flour, and bake the cookies until golden.',
].map((text, i) => passage('cookbook', text, i * 200));

const transformers = [
  'The transformer uses multi-head self-attention over token embeddings with positional encodings.',
  'Each attention head projects queries, keys and values; the softmax of scaled dot products weights values.',
  'Pretraining the transformer encoder with masked language modelling yields contextual token embeddings.',
  'Layer normalisation and residual connections stabilise training of deep attention layers.',
  'The decoder attends to encoder outputs with cross-attention and predicts the next token.',
  'Fine-tuning the pretrained transformer on downstream tasks improves accuracy over recurrent baselines.',
].map((text, i) => passage('attention', text, i * 200));

describe('mapPassages', () => {
  it('is deterministic and keeps coordinates in [-1, 1] with offsets and previews', () => {
    const all = [...cooking, ...transformers];
    const first = mapPassages(all);
    expect(mapPassages(all)).toEqual(first);
    expect(first.method).toBe(MAP_METHOD);
    expect(first.points).toHaveLength(all.length);
    for (const [i, point] of first.points.entries()) {
      expect(Math.abs(point.x)).toBeLessThanOrEqual(1);
      expect(Math.abs(point.y)).toBeLessThanOrEqual(1);
      expect(point).toMatchObject({
        paperId: all[i]?.paperId,
        start: all[i]?.start,
        end: all[i]?.end,
      });
    }
    const extent = Math.max(...first.points.flatMap((p) => [Math.abs(p.x), Math.abs(p.y)]));
    expect(extent).toBeCloseTo(1, 10);
  });

  it('places passages about cooking and about transformers in different regions', () => {
    const { points } = mapPassages([...cooking, ...transformers]);
    const xs = (paper: string): number[] =>
      points.filter((p) => p.paperId === paper).map((p) => p.x);
    const food = xs('cookbook');
    const models = xs('attention');
    // The first component is the topic split: every passage of one lies on one side of the other.
    const separated =
      Math.max(...food) < Math.min(...models) || Math.max(...models) < Math.min(...food);
    expect(separated).toBe(true);
  });

  it('does not depend on the order of the passages, up to reordering the points', () => {
    const all = [...cooking, ...transformers];
    const forward = mapPassages(all).points;
    const backward = mapPassages([...all].reverse()).points.reverse();
    for (const [i, point] of forward.entries()) {
      expect(Math.abs(point.x)).toBeCloseTo(Math.abs(backward[i]?.x ?? NaN), 3);
    }
  });

  it('handles no passages, one, two, identical ones and empty text', () => {
    expect(mapPassages([])).toEqual({ method: MAP_METHOD, points: [] });
    expect(mapPassages([cooking[0] ?? passage('x', '')]).points.map((p) => [p.x, p.y])).toEqual([
      [0, 0],
    ]);

    const two = mapPassages([cooking[0] ?? passage('x', ''), transformers[0] ?? passage('y', '')]);
    expect(two.points.map((p) => Math.abs(p.x))).toEqual([1, 1]);
    expect(two.points[0]?.x).toBe(-(two.points[1]?.x ?? 0));
    expect(two.points.map((p) => p.y)).toEqual([0, 0]);

    const same = passage('x', 'Identical passage about attention.');
    expect(mapPassages([same, same, same]).points.map((p) => [p.x, p.y])).toEqual([
      [0, 0],
      [0, 0],
      [0, 0],
    ]);

    const withEmpty = mapPassages([passage('x', ''), passage('y', 'of the and'), ...cooking]);
    for (const point of withEmpty.points) {
      expect(Number.isFinite(point.x) && Number.isFinite(point.y)).toBe(true);
    }
    expect(withEmpty.points[0]?.preview).toBe('');
  });

  it('previews the start of a passage, whitespace collapsed, at most PREVIEW_LENGTH long', () => {
    const long = passage('x', `First  line\nsecond line ${'word '.repeat(100)}`);
    const [point] = mapPassages([long]).points;
    expect(point?.preview.startsWith('First line second line word')).toBe(true);
    expect(point?.preview.length).toBeLessThanOrEqual(PREVIEW_LENGTH);
    expect(point?.preview.endsWith('…')).toBe(true);
  });

  it('places dense vectors (embeddings) by their principal axes', () => {
    const unit = (...values: number[]) => Float32Array.from(values);
    const passages = ['a', 'b', 'c', 'd'].map((id) => passage(id, `text ${id}`));
    const map = mapDenseVectors(passages, [
      unit(1, 0, 0),
      unit(0.99, 0.1, 0),
      unit(0, 0, 1),
      unit(0, 0.1, 0.99),
    ]);
    expect(map.method).toBe('embeddings-pca');
    const [a = 0, b = 0, c = 0, d = 0] = map.points.map((p) => p.x);
    expect(Math.abs(a - b)).toBeLessThan(0.2);
    expect(Math.abs(c - d)).toBeLessThan(0.2);
    expect(Math.abs(a - c)).toBeGreaterThan(1.5);
    expect(mapDenseVectors([], []).points).toEqual([]);
    expect(() => mapDenseVectors(passages, [unit(1)])).toThrow('1 vectors for 4 passages');
  });

  it('previews exactly as collapsing the whole text would, reading only its start', () => {
    const whole = (text: string): string => {
      const flat = text.replace(/\s+/g, ' ').trim();
      if (flat.length <= PREVIEW_LENGTH) return flat;
      const cut = flat.lastIndexOf(' ', PREVIEW_LENGTH - 1);
      return `${flat.slice(0, cut > PREVIEW_LENGTH / 2 ? cut : PREVIEW_LENGTH - 1)}…`;
    };
    const random = mulberry32(3);
    const pieces = [
      'a',
      'bc',
      'word',
      ' ',
      '  ',
      '\n',
      '\t',
      '\u00a0',
      '\u2003',
      '\ufeff',
      '\u3000',
    ];
    for (let n = 0; n < 3000; n++) {
      let text = '';
      const length = Math.floor(random() * 500);
      while (text.length < length) text += pieces[Math.floor(random() * pieces.length)] ?? '';
      expect(previewOf(text)).toBe(whole(text));
    }
  });
});
