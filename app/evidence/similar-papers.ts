// The papers most like each paper: TF-IDF vectors of their whole texts (app/papers/map's
// weighting) compared by cosine, or dense vectors (a paper's passage embeddings averaged, as the
// map's embedding model gives them). Ties break by id, so the groups are the same on every run.
import { tfidfVectors, type SparseVector } from '../papers/map/index.ts';

function cosine(a: SparseVector, b: SparseVector): number {
  let i = 0;
  let j = 0;
  let dot = 0;
  while (i < a.terms.length && j < b.terms.length) {
    const x = a.terms[i] ?? 0;
    const y = b.terms[j] ?? 0;
    if (x === y) {
      dot += (a.weights[i] ?? 0) * (b.weights[j] ?? 0);
      i++;
      j++;
    } else if (x < y) i++;
    else j++;
  }
  return dot; // the vectors are L2-normalised
}

/** Each paper's others, most similar first (`score` symmetric), the `count` first kept. */
function rankOthers(
  ids: readonly string[],
  score: (a: number, b: number) => number,
  count: number,
): Map<string, string[]> {
  const n = ids.length;
  const scores = new Float64Array(n * n);
  for (let a = 0; a < n; a++) {
    for (let b = a + 1; b < n; b++) {
      const s = score(a, b);
      scores[a * n + b] = s;
      scores[b * n + a] = s;
    }
  }
  const result = new Map<string, string[]>();
  ids.forEach((id, a) => {
    const others = ids
      .map((other, b) => ({ id: other, score: scores[a * n + b] ?? 0, b }))
      .filter((other) => other.b !== a)
      .sort((x, y) => y.score - x.score || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
    result.set(
      id,
      others.slice(0, count).map((other) => other.id),
    );
  });
  return result;
}

export function mostSimilarPapers(
  papers: readonly { id: string; text: string }[],
  count: number,
): Map<string, string[]> {
  const { vectors } = tfidfVectors(papers.map((paper) => paper.text));
  return rankOthers(
    papers.map((p) => p.id),
    (a, b) => {
      const va = vectors[a];
      const vb = vectors[b];
      return va && vb ? cosine(va, vb) : 0;
    },
    count,
  );
}

/** The same ranking over unit dense vectors (a paper without one ranks last for every other). */
export function mostSimilarByVectors(
  vectors: ReadonlyMap<string, Float32Array>,
  count: number,
): Map<string, string[]> {
  const ids = [...vectors.keys()].sort();
  const rows = ids.map((id) => vectors.get(id) ?? new Float32Array());
  return rankOthers(
    ids,
    (a, b) => {
      const x = rows[a] ?? new Float32Array();
      const y = rows[b] ?? new Float32Array();
      let dot = 0;
      for (let i = 0; i < Math.min(x.length, y.length); i++) dot += (x[i] ?? 0) * (y[i] ?? 0);
      return dot;
    },
    count,
  );
}
