// The map of a paper set: every passage placed in 2D by text similarity (TF-IDF or sentence
// embeddings, then the top two principal components). Coordinates lie in [-1, 1] with the aspect
// ratio kept, so distances along both axes compare; the same vectors always give the same map.
import type { Passage } from '../search/index.ts';
import { principalScores } from './projection.ts';
import { tfidfVectors, type SparseMatrix, type SparseVector } from './tfidf.ts';

export interface MapPoint {
  paperId: string;
  start: number;
  end: number;
  x: number;
  y: number;
  /** For display only: the passage's first PREVIEW_LENGTH characters, whitespace collapsed. */
  preview: string;
}

export type MapMethod = 'tfidf-pca' | 'embeddings-pca';

export interface PassageMap {
  method: MapMethod;
  points: MapPoint[];
}

export const MAP_METHOD: MapMethod = 'tfidf-pca';
export const EMBEDDINGS_METHOD: MapMethod = 'embeddings-pca';
export const PREVIEW_LENGTH = 160;

/** What the regex class \s matches. */
function isWhitespace(code: number): boolean {
  if (code <= 32) return code === 32 || (code >= 9 && code <= 13);
  if (code < 0xa0) return false;
  return (
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

/**
 * `text.replace(/\s+/g, ' ').trim()`, read only until it is longer than a preview plus one (a
 * regex over each whole passage took 0.4 s of the 1,000-paper map).
 */
function flatHead(text: string): string {
  let out = '';
  let from = -1; // start of the current run of non-space characters
  for (let i = 0; i <= text.length; i++) {
    const space = i === text.length || isWhitespace(text.charCodeAt(i));
    if (!space && from < 0) {
      if (out !== '') out += ' ';
      from = i;
    } else if (space && from >= 0) {
      out += text.slice(from, i);
      from = -1;
      if (out.length > PREVIEW_LENGTH + 1) break;
    }
  }
  return out;
}

export function previewOf(text: string): string {
  const flat = flatHead(text);
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

function place(
  passages: readonly Passage[],
  vectors: SparseMatrix | readonly SparseVector[],
  dimension: number,
  method: MapMethod,
): PassageMap {
  const [xs = new Float64Array(passages.length), ys = new Float64Array(passages.length)] =
    principalScores(vectors, dimension, 2);
  fitToSquare(xs, ys);
  return {
    method,
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

export function mapPassages(passages: readonly Passage[]): PassageMap {
  if (passages.length === 0) return { method: MAP_METHOD, points: [] };
  const { vocabulary, matrix } = tfidfVectors(passages.map((p) => p.text));
  return place(passages, matrix, vocabulary.length, MAP_METHOD);
}

/** The map from dense vectors (sentence embeddings), one per passage, all the same length. */
export function mapDenseVectors(
  passages: readonly Passage[],
  vectors: readonly Float32Array[],
): PassageMap {
  if (passages.length === 0) return { method: EMBEDDINGS_METHOD, points: [] };
  if (vectors.length !== passages.length) {
    throw new Error(`${String(vectors.length)} vectors for ${String(passages.length)} passages`);
  }
  const dimension = vectors[0]?.length ?? 0;
  const terms = Int32Array.from({ length: dimension }, (_, d) => d);
  const dense = vectors.map((v) => ({ terms, weights: Float64Array.from(v) }));
  return place(passages, dense, dimension, EMBEDDINGS_METHOD);
}
