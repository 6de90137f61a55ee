// The map of a paper set: every passage placed in 2D by text similarity (TF-IDF, then the top two
// principal components). Coordinates lie in [-1, 1] with the aspect ratio kept, so distances along
// both axes compare; the same passages always give the same map.
import type { Passage } from '../search/index.ts';
import { principalScores } from './projection.ts';
import { tfidfVectors } from './tfidf.ts';

export interface MapPoint {
  paperId: string;
  start: number;
  end: number;
  x: number;
  y: number;
  /** For display only: the passage's first PREVIEW_LENGTH characters, whitespace collapsed. */
  preview: string;
}

export interface PassageMap {
  method: string;
  points: MapPoint[];
}

export const MAP_METHOD = 'tfidf-pca';
export const PREVIEW_LENGTH = 160;

export function previewOf(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= PREVIEW_LENGTH) return flat;
  const cut = flat.lastIndexOf(' ', PREVIEW_LENGTH - 1);
  return `${flat.slice(0, cut > PREVIEW_LENGTH / 2 ? cut : PREVIEW_LENGTH - 1)}…`;
}

/** Centres both axes on their ranges and scales by the larger half-range into [-1, 1]. */
function fitToSquare(xs: Float64Array, ys: Float64Array): void {
  const range = (values: Float64Array): [number, number] =>
    values.reduce<[number, number]>(
      ([lo, hi], v) => [Math.min(lo, v), Math.max(hi, v)],
      [Infinity, -Infinity],
    );
  const [xMin, xMax] = range(xs);
  const [yMin, yMax] = range(ys);
  const half = Math.max(xMax - xMin, yMax - yMin) / 2;
  const place = (values: Float64Array, min: number, max: number): void => {
    const centre = (min + max) / 2;
    for (let i = 0; i < values.length; i++) {
      values[i] = half > 0 ? Math.max(-1, Math.min(1, ((values[i] ?? 0) - centre) / half)) : 0;
    }
  };
  place(xs, xMin, xMax);
  place(ys, yMin, yMax);
}

export function mapPassages(passages: readonly Passage[]): PassageMap {
  if (passages.length === 0) return { method: MAP_METHOD, points: [] };
  const { vocabulary, vectors } = tfidfVectors(passages.map((p) => p.text));
  const [xs = new Float64Array(passages.length), ys = new Float64Array(passages.length)] =
    principalScores(vectors, vocabulary.length, 2);
  fitToSquare(xs, ys);
  return {
    method: MAP_METHOD,
    points: passages.map((p, i) => ({
      paperId: p.paperId,
      start: p.start,
      end: p.end,
      x: xs[i] ?? 0,
      y: ys[i] ?? 0,
      preview: previewOf(p.text),
    })),
  };
}
