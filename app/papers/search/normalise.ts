// Text folding for the fuzzy fallback: case, whitespace runs, line-end hyphenation, ligatures,
// accents, curly quotes and dashes. Every folded character records the source range it came from, so
// a match in the folded text maps back to an exact slice of the source.
import { isSpace } from './sentences.ts';

export interface FoldedText {
  /** The folded text; the same folding applied to a keyword makes them comparable. */
  readonly text: string;
  /** `from[j]`: where the source character that produced `text[j]` starts. */
  readonly from: Int32Array;
  /** `to[j]`: where it ends (a whitespace run folds to one space covering the whole run). */
  readonly to: Int32Array;
}

const LIGATURES: Readonly<Record<string, string>> = {
  '\ufb00': 'ff',
  '\ufb01': 'fi',
  '\ufb02': 'fl',
  '\ufb03': 'ffi',
  '\ufb04': 'ffl',
  '\ufb05': 'st',
  '\ufb06': 'st',
};
const SINGLE_QUOTES = '\u2018\u2019\u201a\u201b\u2032\u0060\u00b4';
const DOUBLE_QUOTES = '\u201c\u201d\u201e\u201f\u2033\u00ab\u00bb';
/** Soft hyphen (a line-end break), hyphens, figure dash, en and em dash, bar, minus sign. */
const DASHES = '\u00ad\u2010\u2011\u2012\u2013\u2014\u2015\u2212';
/** Zero-width space and joiners, byte-order mark: invisible in PDF text. */
const INVISIBLE = '\u200b\u200c\u200d\u2060\ufeff';
const COMBINING_MARK = /\p{M}/gu;
const LETTER = /\p{L}/u;

/** Lowercases code point by code point, keeping any whose lowercase has another length. */
export function lowerKeepingOffsets(text: string): string {
  const lower = text.toLowerCase();
  if (lower.length === text.length) return lower;
  let out = '';
  for (const ch of text) {
    const low = ch.toLowerCase();
    out += low.length === ch.length ? low : ch;
  }
  return out;
}

const foldCache = new Map<string, string>();

/** The folded form of one non-ASCII character: ligatures expanded, accents and case dropped. */
function foldChar(ch: string): string {
  const cached = foldCache.get(ch);
  if (cached !== undefined) return cached;
  let folded: string;
  if (SINGLE_QUOTES.includes(ch)) folded = "'";
  else if (DOUBLE_QUOTES.includes(ch)) folded = '"';
  else if (DASHES.includes(ch)) folded = '-';
  else if (INVISIBLE.includes(ch)) folded = '';
  else {
    const base = (LIGATURES[ch] ?? ch.normalize('NFKD').replace(COMBINING_MARK, '')).toLowerCase();
    folded = base === '' ? ch.toLowerCase() : base;
  }
  foldCache.set(ch, folded);
  return folded;
}

function isLetterCode(code: number): boolean {
  if (code < 128) return (code | 32) >= 97 && (code | 32) <= 122;
  return LETTER.test(String.fromCharCode(code));
}

/** Index of the first letter after a hyphen at `dash` and the spaces after it, or -1. */
function hyphenJoinTarget(source: string, dash: number): number {
  let j = dash + 1;
  while (j < source.length && isSpace(source.charCodeAt(j))) j++;
  return j < source.length && isLetterCode(source.charCodeAt(j)) ? j : -1;
}

/**
 * Folds `source`. A hyphen between letters is dropped together with any whitespace after it, so
 * "repre-\nsentation", "repre- sentation" and "representation" fold alike, and so do "fine-grained"
 * and the "finegrained" some extractors produce.
 */
export function foldText(source: string): FoldedText {
  const codes: number[] = [];
  const from: number[] = [];
  const to: number[] = [];
  const emit = (code: number, start: number, end: number): void => {
    codes.push(code);
    from.push(start);
    to.push(end);
  };
  let i = 0;
  while (i < source.length) {
    const code = source.charCodeAt(i);
    const width = code >= 0xd800 && code <= 0xdbff && i + 1 < source.length ? 2 : 1;
    const last = codes.length - 1;
    if (isSpace(code)) {
      if (last >= 0 && codes[last] === 32) to[last] = i + 1;
      else emit(32, i, i + 1);
      i += 1;
      continue;
    }
    const ch = source.slice(i, i + width);
    const folded =
      code < 128 ? (code >= 65 && code <= 90 ? String.fromCharCode(code + 32) : ch) : foldChar(ch);
    if (folded === '-' && last >= 0 && isLetterCode(codes[last] ?? 0)) {
      const next = hyphenJoinTarget(source, i);
      if (next >= 0) {
        i = next;
        continue;
      }
    }
    for (let k = 0; k < folded.length; k++) emit(folded.charCodeAt(k), i, i + width);
    i += width;
  }
  let text = '';
  const CHUNK = 8192;
  for (let k = 0; k < codes.length; k += CHUNK) {
    text += String.fromCharCode(...codes.slice(k, k + CHUNK));
  }
  return { text, from: Int32Array.from(from), to: Int32Array.from(to) };
}

/** The source range covered by folded characters [start, end). */
export function sourceRange(folded: FoldedText, start: number, end: number): [number, number] {
  const first = folded.from[start];
  const last = folded.to[end - 1];
  if (first === undefined || last === undefined || end <= start) {
    throw new RangeError(`folded range [${start}, ${end}) is outside the text`);
  }
  return [first, last];
}
