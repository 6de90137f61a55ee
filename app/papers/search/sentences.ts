// Snippet edges at sentence boundaries. A sentence ends at . ! ? (plus closing quotes or brackets)
// followed by whitespace, or at a blank line; abbreviations, initials and "3.5" do not end one.
// Scanning is local to the hit, so nothing is precomputed per text; edges never cut into the hit.

export interface Span {
  start: number;
  end: number;
}

/** Words that end with a dot without ending the sentence (compared lowercased, without the dot). */
const ABBREVIATIONS = new Set([
  'al', 'approx', 'ca', 'cf', 'ch', 'co', 'corp', 'dept', 'dr', 'ed', 'eds', 'eq', 'eqs', 'etc',
  'fig', 'figs', 'inc', 'jr', 'ltd', 'mr', 'mrs', 'ms', 'no', 'nos', 'p', 'pp', 'prof', 'ref',
  'refs', 'resp', 'sec', 'secs', 'sect', 'sr', 'st', 'tab', 'vol', 'vols', 'vs', 'viz', 'wrt',
]); // prettier-ignore

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
      if (end >= 0) found.push({ end, start: nextNonSpace(text, end) });
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

/** How far past the target an edge may move to reach a sentence boundary. */
function reachFor(window: number): number {
  return Math.max(window, 40);
}

/** Start edge: the sentence start nearest `target`, never after the hit; else a word start. */
function snippetStart(text: string, hitStart: number, target: number, reach: number): number {
  const lo = Math.max(0, target - reach);
  let best = -1;
  const consider = (start: number): void => {
    if (start < lo || start > hitStart) return;
    if (best < 0 || Math.abs(start - target) < Math.abs(best - target)) best = start;
  };
  if (lo === 0) consider(Math.min(nextNonSpace(text, 0), hitStart));
  // A boundary's trigger sits before its start: scan a little before `lo`.
  for (const b of boundariesIn(text, lo - MAX_TOKEN, hitStart)) consider(b.start);
  return best >= 0 ? best : wordStart(text, target, hitStart);
}

/** End edge: the sentence end nearest `target`, never before the hit; else a word end. */
function snippetEnd(text: string, hitEnd: number, target: number, reach: number): number {
  const hi = Math.min(text.length, target + reach);
  let best = -1;
  const consider = (end: number): void => {
    if (end < hitEnd || end > hi) return;
    if (best < 0 || Math.abs(end - target) <= Math.abs(best - target)) best = end;
  };
  for (const b of boundariesIn(text, hitEnd - 1, hi)) consider(b.end);
  if (hi === text.length) consider(Math.max(trimEndBefore(text, text.length), hitEnd));
  return best >= 0 ? best : wordEnd(text, target, hitEnd);
}

/**
 * The snippet around a hit: about `window` characters split before and after it (bidirectional) or
 * from the start of its sentence to `window` characters past its start (forward only).
 */
export function snippetAround(
  text: string,
  hitStart: number,
  hitEnd: number,
  window: number,
  bidirectional: boolean,
): Span {
  const reach = reachFor(window);
  const half = Math.floor(window / 2);
  const startTarget = bidirectional ? Math.max(0, hitStart - half) : hitStart;
  const endTarget = Math.min(
    text.length,
    Math.max(hitEnd, bidirectional ? hitEnd + half : hitStart + window),
  );
  return {
    start: snippetStart(text, hitStart, startTarget, reach),
    end: snippetEnd(text, hitEnd, endTarget, reach),
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
