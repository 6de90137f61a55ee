// Snippet edges at sentence boundaries. A sentence ends at . ! ? (plus closing quotes or brackets)
// followed by whitespace, or at a blank line; abbreviations, initials and "3.5" do not end one.
// Boundaries are found once per text (indexSentences); snippet edges never cut into the hit.

export interface Span {
  start: number;
  end: number;
}

/**
 * Words that end with a dot without ending the sentence (compared lowercased, without the dot).
 * Not "etc" or "ms" (milliseconds): both often end sentences; a lowercase word after still joins.
 */
// prettier-ignore
const ABBREVIATIONS = new Set([
  'al', 'approx', 'ca', 'cf', 'ch', 'co', 'corp', 'dept', 'dr', 'ed', 'eds', 'eq', 'eqs',
  'fig', 'figs', 'inc', 'jr', 'ltd', 'mr', 'mrs', 'no', 'nos', 'p', 'pp', 'prof', 'ref',
  'refs', 'resp', 'sec', 'secs', 'sect', 'sr', 'st', 'tab', 'vol', 'vols', 'vs', 'viz', 'wrt',
]);

const CLOSERS = ')]}"\'\u201d\u2019\u00bb';
const OPENERS = '([{"\'\u201c\u2018\u00ab';
/** How far back a token is read when checking for an abbreviation. */
const MAX_TOKEN = 24;
const DOTTED_ABBREVIATION = /^(?:\p{L}\.)+\p{L}$/u; // e.g, i.e, U.S
const SINGLE_CAPITAL = /^\p{Lu}$/u; // an initial: "J. Smith"
const LOWERCASE_START = /^\p{Ll}/u;

export function isSpace(code: number): boolean {
  return (
    code === 32 ||
    (code >= 9 && code <= 13) ||
    code === 0xa0 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000
  );
}

function nextNonSpace(text: string, from: number): number {
  let i = from;
  while (i < text.length && isSpace(text.charCodeAt(i))) i++;
  return i;
}

/** One past the last non-space character before `to`. */
function trimEndBefore(text: string, to: number): number {
  let i = to;
  while (i > 0 && isSpace(text.charCodeAt(i - 1))) i--;
  return i;
}

function isAbbreviationBefore(text: string, dot: number): boolean {
  let i = dot;
  while (i > 0 && dot - i < MAX_TOKEN && !isSpace(text.charCodeAt(i - 1))) i--;
  let token = text.slice(i, dot);
  while (token.length > 0 && OPENERS.includes(token.charAt(0))) token = token.slice(1);
  if (token === '') return false;
  return (
    ABBREVIATIONS.has(token.toLowerCase()) ||
    SINGLE_CAPITAL.test(token) ||
    DOTTED_ABBREVIATION.test(token)
  );
}

/** The sentence end after the punctuation at `p` (past any closers), or -1 if `p` ends none. */
function sentenceEndAt(text: string, p: number): number {
  let q = p + 1;
  while (q < text.length && CLOSERS.includes(text.charAt(q))) q++;
  if (q < text.length && !isSpace(text.charCodeAt(q))) return -1;
  if (text.charCodeAt(p) === 46 /* . */) {
    if (isAbbreviationBefore(text, p)) return -1;
    // PDF text breaks lines mid-sentence; a dot followed by a lowercase word is not an end.
    if (LOWERCASE_START.test(text.charAt(nextNonSpace(text, q)))) return -1;
  }
  return q;
}

function isBlankLineAt(text: string, p: number): boolean {
  if (text.charCodeAt(p) !== 10) return false;
  let j = p + 1;
  while (j < text.length && text.charCodeAt(j) !== 10 && isSpace(text.charCodeAt(j))) j++;
  return j < text.length && text.charCodeAt(j) === 10;
}

/** Sentence boundaries whose trigger character lies in [from, to): `end` of one, `start` of next. */
export function boundariesIn(text: string, from: number, to: number): Span[] {
  const found: Span[] = [];
  const stop = Math.min(to, text.length);
  for (let p = Math.max(0, from); p < stop; p++) {
    const code = text.charCodeAt(p);
    if (code === 46 || code === 33 || code === 63) {
      const end = sentenceEndAt(text, p);
      if (end >= 0) {
        const start = nextNonSpace(text, end);
        found.push({ end, start });
        p = start - 1; // a blank line right after is the same boundary
      }
    } else if (isBlankLineAt(text, p)) {
      const start = nextNonSpace(text, p);
      found.push({ end: trimEndBefore(text, p), start });
      p = start - 1;
    }
  }
  return found;
}

function wordStart(text: string, target: number, limit: number): number {
  let i = target;
  while (i > 0 && target - i < MAX_TOKEN && !isSpace(text.charCodeAt(i - 1))) i--;
  if (i > 0 && !isSpace(text.charCodeAt(i - 1))) i = target; // a run with no space: cut there
  return Math.min(nextNonSpace(text, i), limit);
}

function wordEnd(text: string, target: number, limit: number): number {
  let i = target;
  while (i < text.length && i - target < MAX_TOKEN && !isSpace(text.charCodeAt(i))) i++;
  if (i < text.length && !isSpace(text.charCodeAt(i))) i = target;
  return Math.max(trimEndBefore(text, i), limit);
}

/** Every sentence boundary of a text, as two sorted arrays; built once per text and reused. */
export interface SentenceIndex {
  readonly starts: Int32Array;
  readonly ends: Int32Array;
}

export function indexSentences(text: string): SentenceIndex {
  const boundaries = boundariesIn(text, 0, text.length);
  return {
    starts: Int32Array.from(boundaries, (b) => b.start),
    ends: Int32Array.from(boundaries, (b) => b.end),
  };
}

/** First index i with sorted[i] >= value (sorted.length if none). */
function lowerBound(sorted: Int32Array, value: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((sorted[mid] ?? 0) < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** How far past the target an edge may move to reach a sentence boundary. */
function reachFor(window: number): number {
  return Math.max(window, 40);
}

/** The candidate nearest `target` among those in [lo, hi]; ties go to `preferLower`'s side. */
function nearest(
  candidates: readonly number[],
  target: number,
  lo: number,
  hi: number,
  preferLower: boolean,
): number {
  let best = -1;
  for (const c of candidates) {
    if (c < lo || c > hi) continue;
    const distance = Math.abs(c - target);
    const bestDistance = Math.abs(best - target);
    if (
      best < 0 ||
      distance < bestDistance ||
      (distance === bestDistance && preferLower === c < best)
    ) {
      best = c;
    }
  }
  return best;
}

/** Start edge: the sentence start nearest `target`, never after the hit; else a word start. */
function snippetStart(
  text: string,
  starts: Int32Array,
  hitStart: number,
  target: number,
  reach: number,
): number {
  const lo = Math.max(0, target - reach);
  const i = lowerBound(starts, target);
  const candidates = [starts[i] ?? -1, starts[i - 1] ?? -1];
  if (lo === 0) candidates.push(Math.min(nextNonSpace(text, 0), hitStart));
  const best = nearest(candidates, target, lo, hitStart, true);
  return best >= 0 ? best : wordStart(text, target, hitStart);
}

/** End edge: the sentence end nearest `target`, never before the hit; else a word end. */
function snippetEnd(
  text: string,
  ends: Int32Array,
  hitEnd: number,
  target: number,
  reach: number,
): number {
  const hi = Math.min(text.length, target + reach);
  const i = lowerBound(ends, target);
  const candidates = [ends[i] ?? -1, ends[i - 1] ?? -1];
  if (hi === text.length) candidates.push(Math.max(trimEndBefore(text, text.length), hitEnd));
  const best = nearest(candidates, target, hitEnd, hi, false);
  return best >= 0 ? best : wordEnd(text, target, hitEnd);
}

/**
 * The snippet around a hit: about `window` characters split before and after it (bidirectional) or
 * from the start of its sentence to `window` characters past its start (forward only).
 */
export function snippetAround(
  text: string,
  sentences: SentenceIndex,
  hit: Span,
  window: number,
  bidirectional: boolean,
): Span {
  const reach = reachFor(window);
  const half = Math.floor(window / 2);
  const startTarget = bidirectional ? Math.max(0, hit.start - half) : hit.start;
  const endTarget = Math.min(
    text.length,
    Math.max(hit.end, bidirectional ? hit.end + half : hit.start + window),
  );
  return {
    start: snippetStart(text, sentences.starts, hit.start, startTarget, reach),
    end: snippetEnd(text, sentences.ends, hit.end, endTarget, reach),
  };
}

/** Unions overlapping or touching spans; the result is sorted and disjoint. */
export function mergeSpans(spans: readonly Span[]): Span[] {
  const sorted = [...spans].sort((a, b) => a.start - b.start || a.end - b.end);
  const merged: Span[] = [];
  for (const span of sorted) {
    const last = merged.at(-1);
    if (last !== undefined && span.start <= last.end) last.end = Math.max(last.end, span.end);
    else merged.push({ start: span.start, end: span.end });
  }
  return merged;
}
