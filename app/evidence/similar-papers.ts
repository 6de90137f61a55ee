// The papers most like each paper: TF-IDF vectors of their whole texts (app/papers/map's
// weighting) compared by cosine. Ties break by id, so the groups are the same on every run.
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

export function mostSimilarPapers(
  papers: readonly { id: string; text: string }[],
  count: number,
): Map<string, string[]> {
  const { vectors } = tfidfVectors(papers.map((paper) => paper.text));
  const n = papers.length;
  const scores = new Float64Array(n * n);
  for (let a = 0; a < n; a++) {
    for (let b = a + 1; b < n; b++) {
      const va = vectors[a];
      const vb = vectors[b];
      const score = va && vb ? cosine(va, vb) : 0;
      scores[a * n + b] = score;
      scores[b * n + a] = score;
    }
  }
  const result = new Map<string, string[]>();
  papers.forEach((paper, a) => {
    const others = papers
      .map((other, b) => ({ id: other.id, score: scores[a * n + b] ?? 0, b }))
      .filter((other) => other.b !== a)
      .sort((x, y) => y.score - x.score || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
    result.set(
      paper.id,
      others.slice(0, count).map((other) => other.id),
    );
  });
  return result;
}
