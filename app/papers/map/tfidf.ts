// TF-IDF vectors of passages: lowercased, accent- and ligature-folded word tokens, stop words and
// tokens under three characters dropped, sublinear tf (1 + ln tf), smoothed idf, L2-normalised.
// Vectors are sparse and their term ids follow the sorted vocabulary, so output is deterministic.
import { isWordChar } from '../search/normalise.ts';

export interface SparseVector {
  /** Term ids, ascending. */
  readonly terms: Int32Array;
  readonly weights: Float64Array;
}

/** Sparse vectors packed row after row (CSR): row i's entries are [offsets[i], offsets[i + 1]). */
export interface SparseMatrix {
  readonly rows: number;
  readonly offsets: Int32Array;
  readonly terms: Int32Array;
  readonly weights: Float64Array;
}

export interface TfIdf {
  readonly vocabulary: readonly string[];
  /** One per text; views into `matrix`. */
  readonly vectors: readonly SparseVector[];
  readonly matrix: SparseMatrix;
}

const MIN_TOKEN = 3;
/** Common English function words plus words every paper uses ("paper", "et", "al", "fig"). */
const STOP_WORDS = new Set(
  `about above after again against all also among and any are because been before being below
  between both but can cannot could did does doing down during each either else etc even ever every
  few for from further had has have having her here hers herself him himself his how however into
  its itself just may might more most much must neither nor not now off once only other our ours
  ourselves out over own per same she should since some such than that the their theirs them
  themselves then there these they this those though through thus too under until upon use used
  using very via was were what when where whether which while who whom whose why will with within
  without would yet you your yours yourself yourselves one two three also fig figure table tab
  section sec paper papers et al eq https http www com org`.split(/\s+/),
);

const NON_ASCII = /[\u0080-\uffff]+/g;
const COMBINING = /\p{M}/gu;

/**
 * Lowercased, accents and ligatures folded. Only the non-ASCII runs are decomposed: an ASCII
 * character is a starter that canonical reordering never crosses, so this equals decomposing the
 * whole text, and most passages have few such runs.
 */
function fold(text: string): string {
  return text
    .replace(NON_ASCII, (run) => run.normalize('NFKD').replace(COMBINING, ''))
    .toLowerCase();
}

/** Calls `visit` with each kept token of `text`, in order. */
function eachToken(text: string, visit: (token: string) => void): void {
  const folded = fold(text);
  let start = -1;
  let onlyDigits = true;
  for (let i = 0; i <= folded.length; i++) {
    const code = i < folded.length ? folded.charCodeAt(i) : 32;
    if (isWordChar(code)) {
      if (start < 0) {
        start = i;
        onlyDigits = true;
      }
      if (code < 48 || code > 57) onlyDigits = false;
    } else if (start >= 0) {
      if (i - start >= MIN_TOKEN && !onlyDigits) {
        const token = folded.slice(start, i);
        if (!STOP_WORDS.has(token)) visit(token);
      }
      start = -1;
    }
  }
}

export function tokenise(text: string): string[] {
  const tokens: string[] = [];
  eachToken(text, (token) => tokens.push(token));
  return tokens;
}

/** A document's sorted term ids, run-length counted: the distinct ids and how often each occurs. */
function counted(sorted: Int32Array): { ids: Int32Array; counts: Int32Array } {
  let distinct = 0;
  for (let k = 0; k < sorted.length; k++) if (k === 0 || sorted[k] !== sorted[k - 1]) distinct++;
  const ids = new Int32Array(distinct);
  const counts = new Int32Array(distinct);
  let at = -1;
  for (let k = 0; k < sorted.length; k++) {
    if (k === 0 || sorted[k] !== sorted[k - 1]) ids[++at] = sorted[k] ?? 0;
    counts[at] = (counts[at] ?? 0) + 1;
  }
  return { ids, counts };
}

export function tfidfVectors(texts: readonly string[]): TfIdf {
  const idOf = new Map<string, number>();
  const seen: string[] = [];
  const documents = texts.map((text) => {
    const ids: number[] = [];
    eachToken(text, (token) => {
      let id = idOf.get(token);
      if (id === undefined) {
        id = seen.length;
        idOf.set(token, id);
        seen.push(token);
      }
      ids.push(id);
    });
    return Int32Array.from(ids);
  });
  // Term ids follow the sorted vocabulary, not the order terms were first seen in.
  const order = seen
    .map((_, id) => id)
    .sort((a, b) => ((seen[a] ?? '') < (seen[b] ?? '') ? -1 : 1));
  const rank = new Int32Array(seen.length);
  order.forEach((id, r) => (rank[id] = r));
  const vocabulary = order.map((id) => seen[id] ?? '');
  const termCounts = documents.map((ids) => {
    for (let k = 0; k < ids.length; k++) ids[k] = rank[ids[k] ?? 0] ?? 0;
    return counted(ids.sort());
  });

  const documentFrequency = new Int32Array(vocabulary.length);
  const offsets = new Int32Array(texts.length + 1);
  termCounts.forEach(({ ids }, i) => {
    offsets[i + 1] = (offsets[i] ?? 0) + ids.length;
    for (const id of ids) documentFrequency[id] = (documentFrequency[id] ?? 0) + 1;
  });
  const n = texts.length;
  const idf = Float64Array.from(documentFrequency, (df) => Math.log((1 + n) / (1 + df)) + 1);
  // ln(1 + tf) for the small counts that make up nearly every entry, computed once.
  const sublinear = Float64Array.from({ length: 64 }, (_, tf) => 1 + Math.log(Math.max(tf, 1)));

  const size = offsets[texts.length] ?? 0;
  const terms = new Int32Array(size);
  const weights = new Float64Array(size);
  const vectors = termCounts.map(({ ids, counts }, i): SparseVector => {
    const begin = offsets[i] ?? 0;
    terms.set(ids, begin);
    let squares = 0;
    for (let k = 0; k < ids.length; k++) {
      const tf = counts[k] ?? 1;
      const w = (tf < 64 ? (sublinear[tf] ?? 1) : 1 + Math.log(tf)) * (idf[ids[k] ?? 0] ?? 0);
      weights[begin + k] = w;
      squares += w * w;
    }
    const norm = Math.sqrt(squares);
    if (norm > 0)
      for (let k = 0; k < ids.length; k++) weights[begin + k] = (weights[begin + k] ?? 0) / norm;
    return {
      terms: terms.subarray(begin, begin + ids.length),
      weights: weights.subarray(begin, begin + ids.length),
    };
  });
  return { vocabulary, vectors, matrix: { rows: texts.length, offsets, terms, weights } };
}
