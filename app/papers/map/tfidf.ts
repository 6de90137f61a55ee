// TF-IDF vectors of passages: lowercased, accent- and ligature-folded word tokens, stop words and
// tokens under three characters dropped, sublinear tf (1 + ln tf), smoothed idf, L2-normalised.
// Vectors are sparse and their term ids follow the sorted vocabulary, so output is deterministic.

export interface SparseVector {
  /** Term ids, ascending. */
  readonly terms: Int32Array;
  readonly weights: Float64Array;
}

export interface TfIdf {
  readonly vocabulary: readonly string[];
  readonly vectors: readonly SparseVector[];
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
const WORD_CHAR = /[\p{L}\p{N}]/u;
const wordCharCache = new Map<number, boolean>();

/** Letters and digits; a hand-written scan, since \p{...} regexes are slow on long texts in V8. */
function isWordChar(code: number): boolean {
  if (code < 128) return (code >= 48 && code <= 57) || ((code | 32) >= 97 && (code | 32) <= 122);
  let word = wordCharCache.get(code);
  if (word === undefined) {
    word = WORD_CHAR.test(String.fromCharCode(code));
    wordCharCache.set(code, word);
  }
  return word;
}

export function tokenise(text: string): string[] {
  const folded = text.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();
  const tokens: string[] = [];
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
      const token = folded.slice(start, i);
      if (token.length >= MIN_TOKEN && !onlyDigits && !STOP_WORDS.has(token)) tokens.push(token);
      start = -1;
    }
  }
  return tokens;
}

/** Run-length counts of a sorted id list: the distinct ids and how often each occurs. */
function runs(sorted: Int32Array): { ids: Int32Array; counts: Int32Array } {
  const ids: number[] = [];
  const counts: number[] = [];
  for (let k = 0; k < sorted.length; k++) {
    const id = sorted[k] ?? 0;
    if (k > 0 && id === sorted[k - 1]) counts[counts.length - 1] = (counts.at(-1) ?? 0) + 1;
    else {
      ids.push(id);
      counts.push(1);
    }
  }
  return { ids: Int32Array.from(ids), counts: Int32Array.from(counts) };
}

export function tfidfVectors(texts: readonly string[]): TfIdf {
  const idOf = new Map<string, number>();
  const seen: string[] = [];
  const documents = texts.map((text) => {
    const tokens = tokenise(text);
    const ids = new Int32Array(tokens.length);
    tokens.forEach((token, k) => {
      let id = idOf.get(token);
      if (id === undefined) {
        id = seen.length;
        idOf.set(token, id);
        seen.push(token);
      }
      ids[k] = id;
    });
    return ids;
  });
  // Term ids follow the sorted vocabulary, not the order terms were first seen in.
  const order = seen
    .map((_, id) => id)
    .sort((a, b) => ((seen[a] ?? '') < (seen[b] ?? '') ? -1 : 1));
  const rank = new Int32Array(seen.length);
  order.forEach((id, r) => (rank[id] = r));
  const vocabulary = order.map((id) => seen[id] ?? '');
  const termCounts = documents.map((ids) => runs(ids.map((id) => rank[id] ?? 0).sort()));

  const documentFrequency = new Int32Array(vocabulary.length);
  for (const { ids } of termCounts)
    for (const id of ids) documentFrequency[id] = (documentFrequency[id] ?? 0) + 1;
  const n = texts.length;
  const idf = Float64Array.from(documentFrequency, (df) => Math.log((1 + n) / (1 + df)) + 1);

  const vectors = termCounts.map(({ ids, counts }): SparseVector => {
    const weights = new Float64Array(ids.length);
    let squares = 0;
    for (let k = 0; k < ids.length; k++) {
      const w = (1 + Math.log(counts[k] ?? 1)) * (idf[ids[k] ?? 0] ?? 0);
      weights[k] = w;
      squares += w * w;
    }
    const norm = Math.sqrt(squares);
    if (norm > 0) for (let k = 0; k < weights.length; k++) weights[k] = (weights[k] ?? 0) / norm;
    return { terms: ids, weights };
  });
  return { vocabulary, vectors };
}
