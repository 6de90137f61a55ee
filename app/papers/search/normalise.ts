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

const WORD_CHAR = /[\p{L}\p{N}]/u;
const wordCharCache = new Map<number, boolean>();

/** Letters and digits; a hand-written scan, since \p{...} regexes are slow on long texts in V8. */
export function isWordChar(code: number): boolean {
  if (code < 128) return (code >= 48 && code <= 57) || ((code | 32) >= 97 && (code | 32) <= 122);
  let word = wordCharCache.get(code);
  if (word === undefined) {
    word = WORD_CHAR.test(String.fromCharCode(code));
    wordCharCache.set(code, word);
  }
  return word;
}

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

const utf16 = new TextDecoder('utf-16le');

/** Folded code units and their source ranges, in typed arrays that grow by doubling. */
class FoldBuffer {
  length = 0;
  codes: Uint16Array;
  from: Int32Array;
  to: Int32Array;

  constructor(capacity: number) {
    this.codes = new Uint16Array(capacity);
    this.from = new Int32Array(capacity);
    this.to = new Int32Array(capacity);
  }

  push(code: number, start: number, end: number): void {
    if (this.length === this.codes.length) this.grow();
    this.codes[this.length] = code;
    this.from[this.length] = start;
    this.to[this.length] = end;
    this.length++;
  }

  lastCode(): number {
    return this.length > 0 ? (this.codes[this.length - 1] ?? -1) : -1;
  }

  private grow(): void {
    const capacity = this.codes.length * 2 + 16;
    const codes = new Uint16Array(capacity);
    const from = new Int32Array(capacity);
    const to = new Int32Array(capacity);
    codes.set(this.codes);
    from.set(this.from);
    to.set(this.to);
    this.codes = codes;
    this.from = from;
    this.to = to;
  }

  result(): FoldedText {
    // One decode instead of String.fromCharCode per chunk: much faster on long texts. A lone
    // surrogate becomes U+FFFD, still one code unit, so offsets stay aligned.
    const text = utf16.decode(this.codes.subarray(0, this.length));
    return { text, from: this.from.slice(0, this.length), to: this.to.slice(0, this.length) };
  }
}

/**
 * Folds `source`. A hyphen between letters is dropped together with any whitespace after it, so
 * "repre-\nsentation", "repre- sentation" and "representation" fold alike, and so do "fine-grained"
 * and the "finegrained" some extractors produce.
 */
export function foldText(source: string): FoldedText {
  const out = new FoldBuffer(source.length + 16);
  let i = 0;
  while (i < source.length) {
    const code = source.charCodeAt(i);
    if (isSpace(code)) {
      if (out.lastCode() === 32) out.to[out.length - 1] = i + 1;
      else out.push(32, i, i + 1);
      i += 1;
      continue;
    }
    if (code < 128 && code !== 45) {
      out.push(code >= 65 && code <= 90 ? code + 32 : code, i, i + 1);
      i += 1;
      continue;
    }
    const width = code >= 0xd800 && code <= 0xdbff && i + 1 < source.length ? 2 : 1;
    const folded = code === 45 ? '-' : foldChar(source.slice(i, i + width));
    if (folded === '-' && isLetterCode(out.lastCode())) {
      const next = hyphenJoinTarget(source, i);
      if (next >= 0) {
        i = next;
        continue;
      }
    }
    for (let k = 0; k < folded.length; k++) out.push(folded.charCodeAt(k), i, i + width);
    i += width;
  }
  return out.result();
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
