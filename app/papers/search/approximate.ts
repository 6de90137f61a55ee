// Approximate substring search: where does `pattern` occur in `haystack` with at most k edits
// (Levenshtein)? Myers' bit-parallel algorithm for patterns up to 32 code units; longer ones are
// filtered by pieces with Myers and verified by Ukkonen's cut-off. Matches are disjoint, each with
// its best distance.

export interface ApproximateMatch {
  start: number;
  end: number;
  distance: number;
}

type EndSink = (end: number, distance: number) => void;

const WORD = 32;

/** Myers (1999) in Hyyrö's formulation; only bit m-1 of the 32-bit vectors is ever read. */
function myersEnds(haystack: string, pattern: string, maxEdits: number, sink: EndSink): void {
  const m = pattern.length;
  const ascii = new Int32Array(128);
  const other = new Map<number, number>();
  for (let i = 0; i < m; i++) {
    const code = pattern.charCodeAt(i);
    if (code < 128) ascii[code] = (ascii[code] ?? 0) | (1 << i);
    else other.set(code, (other.get(code) ?? 0) | (1 << i));
  }
  const last = 1 << (m - 1);
  let pv = -1;
  let mv = 0;
  let score = m;
  for (let j = 0; j < haystack.length; j++) {
    const code = haystack.charCodeAt(j);
    const eq = code < 128 ? (ascii[code] ?? 0) : (other.get(code) ?? 0);
    const xv = eq | mv;
    const xh = (((eq & pv) + pv) ^ pv) | eq;
    let ph = mv | ~(xh | pv);
    let mh = pv & xh;
    if ((ph & last) !== 0) score++;
    else if ((mh & last) !== 0) score--;
    ph <<= 1; // no carry-in: a match may start anywhere in the haystack
    mh <<= 1;
    pv = mh | ~(xv | ph);
    mv = ph & xv;
    if (score <= maxEdits) sink(j + 1, score);
  }
}

/** Ukkonen's cut-off: only the rows whose value can still be <= k are updated. */
function ukkonenEnds(haystack: string, pattern: string, maxEdits: number, sink: EndSink): void {
  const m = pattern.length;
  const codes = Uint16Array.from({ length: m }, (_, i) => pattern.charCodeAt(i));
  const column = new Int32Array(m + 1);
  for (let i = 0; i <= m; i++) column[i] = i;
  let lastActive = Math.min(maxEdits, m);
  for (let j = 0; j < haystack.length; j++) {
    const code = haystack.charCodeAt(j);
    let diagonal = 0; // row 0 is 0 in every column: a match may start anywhere
    let above = 0;
    for (let i = 1; i <= lastActive; i++) {
      const left = column[i] ?? 0;
      let value = diagonal;
      if (codes[i - 1] !== code) {
        value = (left < value ? left : value) + 1;
        if (above + 1 < value) value = above + 1;
      }
      diagonal = left;
      column[i] = value;
      above = value;
    }
    while (lastActive > 0 && (column[lastActive] ?? 0) > maxEdits) lastActive--;
    if (lastActive === m) sink(j + 1, column[m] ?? 0);
    else {
      lastActive++;
      column[lastActive] = maxEdits + 1; // inactive rows are known to exceed k
    }
  }
}

/**
 * Patterns over 32 units: split into s pieces of <= 32; a match with <= k edits holds some piece
 * with <= floor(k/s) edits (pigeonhole), so Myers finds candidate pieces fast and Ukkonen verifies
 * only windows around them. A window spans every match its piece can belong to, and overlapping
 * windows are merged, so each end gets the distance a scan of the whole haystack would give.
 */
function filteredEnds(haystack: string, pattern: string, maxEdits: number, sink: EndSink): void {
  const m = pattern.length;
  const pieces = Math.ceil(m / WORD);
  const pieceEdits = Math.floor(maxEdits / pieces);
  const windows: { start: number; end: number }[] = [];
  for (let p = 0; p < pieces; p++) {
    const offset = Math.floor((p * m) / pieces);
    const length = Math.floor(((p + 1) * m) / pieces) - offset;
    myersEnds(haystack, pattern.slice(offset, offset + length), pieceEdits, (end) => {
      windows.push({
        start: Math.max(0, end - length - offset - 2 * maxEdits),
        end: Math.min(haystack.length, end + (m - offset - length) + 2 * maxEdits),
      });
    });
  }
  windows.sort((a, b) => a.start - b.start);
  let current: { start: number; end: number } | undefined;
  const verify = (w: { start: number; end: number }): void => {
    const slice = haystack.slice(w.start, w.end);
    ukkonenEnds(slice, pattern, maxEdits, (end, distance) => {
      sink(w.start + end, distance);
    });
  };
  for (const window of windows) {
    if (current !== undefined && window.start <= current.end) {
      current.end = Math.max(current.end, window.end);
      continue;
    }
    if (current !== undefined) verify(current);
    current = { ...window };
  }
  if (current !== undefined) verify(current);
}

/** Every end offset where `pattern` matches with <= maxEdits edits, with its distance. */
export function approximateEnds(
  haystack: string,
  pattern: string,
  maxEdits: number,
): { end: number; distance: number }[] {
  const ends: { end: number; distance: number }[] = [];
  if (pattern.length === 0) return ends;
  const sink: EndSink = (end, distance) => ends.push({ end, distance });
  if (pattern.length <= WORD) myersEnds(haystack, pattern, maxEdits, sink);
  else filteredEnds(haystack, pattern, maxEdits, sink);
  return ends;
}

/**
 * The start that gives the match ending at `end` its best distance (the longest on ties): an
 * edit-distance table of the reversed pattern against the text read backwards from `end`.
 */
function bestStart(haystack: string, pattern: string, end: number, maxEdits: number): number {
  const m = pattern.length;
  const width = Math.min(end, m + maxEdits);
  let previous = new Int32Array(width + 1);
  let current = new Int32Array(width + 1);
  for (let j = 0; j <= width; j++) previous[j] = j;
  for (let i = 1; i <= m; i++) {
    current[0] = i;
    const p = pattern.charCodeAt(m - i);
    for (let j = 1; j <= width; j++) {
      const cost = haystack.charCodeAt(end - j) === p ? 0 : 1;
      current[j] = Math.min(
        (previous[j - 1] ?? 0) + cost,
        (previous[j] ?? 0) + 1,
        (current[j - 1] ?? 0) + 1,
      );
    }
    [previous, current] = [current, previous];
  }
  let bestLength = 0;
  for (let j = 1; j <= width; j++) {
    if ((previous[j] ?? 0) <= (previous[bestLength] ?? 0)) bestLength = j;
  }
  return end - bestLength;
}

/**
 * Disjoint approximate matches. Ends within a run of consecutive qualifying ends belong to one
 * occurrence; it keeps its lowest distance (the latest such end, so a whole word is covered).
 */
export function approximateMatches(
  haystack: string,
  pattern: string,
  maxEdits: number,
): ApproximateMatch[] {
  const matches: ApproximateMatch[] = [];
  let run: { end: number; distance: number } | undefined;
  let previousEnd = -2;
  const close = (): void => {
    if (run === undefined) return;
    const start = bestStart(haystack, pattern, run.end, maxEdits);
    const before = matches.at(-1);
    if (before === undefined || start >= before.end) {
      matches.push({ start, end: run.end, distance: run.distance });
    }
    run = undefined;
  };
  for (const hit of approximateEnds(haystack, pattern, maxEdits)) {
    if (hit.end !== previousEnd + 1) close();
    if (run === undefined || hit.distance <= run.distance) run = hit;
    previousEnd = hit.end;
  }
  close();
  return matches;
}

/** Edits allowed for a keyword: one per five characters, at least one. */
export function editBudget(keywordLength: number): number {
  return Math.max(1, Math.floor(keywordLength / 5));
}
