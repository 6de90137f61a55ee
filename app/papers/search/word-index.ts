// Where a keyword occurs in a large set of lowercased texts, without scanning them: an index of
// every word's positions. A keyword's longest word W decides which indexed words can hold it: W is
// a whole word when the keyword has a non-word character on both sides of it, a word's start or
// end when on one side, anywhere in a word otherwise. Each candidate position is then checked
// against the text, so the result is exactly what a scan with indexOf finds (a test compares them).
import { isWordChar } from './normalise.ts';

export interface Occurrence {
  /** Index of the text. */
  text: number;
  start: number;
}

interface Run {
  start: number;
  end: number;
}

function wordRuns(text: string): Run[] {
  const runs: Run[] = [];
  let start = -1;
  for (let i = 0; i <= text.length; i++) {
    const word = i < text.length && isWordChar(text.charCodeAt(i));
    if (word && start < 0) start = i;
    else if (!word && start >= 0) {
      runs.push({ start, end: i });
      start = -1;
    }
  }
  return runs;
}

function grow(array: Int32Array<ArrayBuffer>): Int32Array<ArrayBuffer> {
  const grown = new Int32Array(array.length * 2);
  grown.set(array);
  return grown;
}

/** First index in `sorted` (ids ordered by `key`) whose key is >= value. */
function lowerBound(sorted: Int32Array, key: (id: number) => string, value: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (key(sorted[mid] ?? 0) < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Reversed by UTF-16 unit: words hold no surrogates (isWordChar is false for them). */
function reverse(word: string): string {
  let out = '';
  for (let i = word.length - 1; i >= 0; i--) out += word.charAt(i);
  return out;
}

export class WordIndex {
  readonly #texts: readonly string[];
  /** Where each text starts in one numbering of all their characters. */
  readonly #bases: Float64Array;
  readonly #words: string[] = [];
  readonly #idOf = new Map<string, number>();
  /** Word id w's positions are #positions[#starts[w] .. #starts[w + 1]), ascending. */
  readonly #starts: Int32Array;
  readonly #positions: Int32Array;
  #byWord?: Int32Array;
  #reversed?: string[];
  #byReversed?: Int32Array;
  #trigrams?: Map<string, number[]>;

  /** `texts` lowercased as the keywords will be (lowerKeepingOffsets), under 2^31 characters in all. */
  constructor(texts: readonly string[]) {
    const total = texts.reduce((sum, text) => sum + text.length, 0);
    if (total >= 2 ** 31) throw new RangeError(`${String(total)} characters: too many to index`);
    this.#texts = texts;
    this.#bases = new Float64Array(texts.length + 1);
    let ids = new Int32Array(1 << 16);
    let at = new Int32Array(1 << 16);
    let count = 0;
    texts.forEach((text, t) => {
      const base = this.#bases[t] ?? 0;
      this.#bases[t + 1] = base + text.length;
      let start = -1;
      for (let i = 0; i <= text.length; i++) {
        const word = i < text.length && isWordChar(text.charCodeAt(i));
        if (word) {
          if (start < 0) start = i;
          continue;
        }
        if (start < 0) continue;
        const token = text.slice(start, i);
        let id = this.#idOf.get(token);
        if (id === undefined) {
          id = this.#words.length;
          this.#idOf.set(token, id);
          this.#words.push(token);
        }
        if (count === ids.length) {
          ids = grow(ids);
          at = grow(at);
        }
        ids[count] = id;
        at[count++] = base + start;
        start = -1;
      }
    });
    this.#starts = new Int32Array(this.#words.length + 1);
    for (let k = 0; k < count; k++) {
      const id = (ids[k] ?? 0) + 1;
      this.#starts[id] = (this.#starts[id] ?? 0) + 1;
    }
    for (let w = 0; w < this.#words.length; w++)
      this.#starts[w + 1] = (this.#starts[w + 1] ?? 0) + (this.#starts[w] ?? 0);
    const filled = this.#starts.slice(0, this.#words.length);
    this.#positions = new Int32Array(count);
    for (let k = 0; k < count; k++) {
      const id = ids[k] ?? 0;
      this.#positions[filled[id] ?? 0] = at[k] ?? 0;
      filled[id] = (filled[id] ?? 0) + 1;
    }
  }

  /** How many distinct words the texts hold. */
  get vocabulary(): number {
    return this.#words.length;
  }

  /**
   * Every occurrence of `needle` (lowercased like the texts), non-overlapping and in order as a
   * scan from the left finds them; undefined when the needle has no word character to look up.
   */
  occurrences(needle: string): Occurrence[] | undefined {
    const anchor = wordRuns(needle).reduce<Run | undefined>(
      (best, run) => (!best || run.end - run.start > best.end - best.start ? run : best),
      undefined,
    );
    if (!anchor) return undefined;
    const word = needle.slice(anchor.start, anchor.end);
    const startsWord = anchor.start > 0;
    const endsWord = anchor.end < needle.length;
    const holders = this.#holders(word, startsWord, endsWord);
    let size = 0;
    for (const { id, offsets } of holders)
      size += ((this.#starts[id + 1] ?? 0) - (this.#starts[id] ?? 0)) * offsets.length;
    const found = new Int32Array(size);
    let n = 0;
    for (const { id, offsets } of holders) {
      const from = this.#starts[id] ?? 0;
      const to = this.#starts[id + 1] ?? 0;
      for (const offset of offsets) {
        const shift = offset - anchor.start;
        for (let k = from; k < to; k++) found[n++] = (this.#positions[k] ?? 0) + shift;
      }
    }
    // One word at one offset is already in order; otherwise a typed (numeric) sort.
    if (holders.length > 1 || (holders[0]?.offsets.length ?? 0) > 1) found.sort();
    const occurrences: Occurrence[] = [];
    let end = -1;
    let t = 0;
    for (const candidate of found) {
      if (candidate < end) continue;
      while ((this.#bases[t + 1] ?? Infinity) <= candidate) t++;
      const start = candidate - (this.#bases[t] ?? 0);
      if (start < 0 || !(this.#texts[t] ?? '').startsWith(needle, start)) continue;
      occurrences.push({ text: t, start });
      end = candidate + needle.length;
    }
    return occurrences;
  }

  /** The indexed words that can hold `word` as the needle does, with where in them it sits. */
  #holders(
    word: string,
    startsWord: boolean,
    endsWord: boolean,
  ): { id: number; offsets: number[] }[] {
    if (startsWord && endsWord) {
      const id = this.#idOf.get(word);
      return id === undefined ? [] : [{ id, offsets: [0] }];
    }
    if (startsWord) {
      const sorted = (this.#byWord ??= this.#sortedBy((id) => this.#words[id] ?? ''));
      const key = (id: number): string => this.#words[id] ?? '';
      const holders: { id: number; offsets: number[] }[] = [];
      for (let i = lowerBound(sorted, key, word); i < sorted.length; i++) {
        const id = sorted[i] ?? 0;
        if (!key(id).startsWith(word)) break;
        holders.push({ id, offsets: [0] });
      }
      return holders;
    }
    if (endsWord) {
      const reversed = (this.#reversed ??= this.#words.map(reverse));
      const key = (id: number): string => reversed[id] ?? '';
      const sorted = (this.#byReversed ??= this.#sortedBy(key));
      const target = reverse(word);
      const holders: { id: number; offsets: number[] }[] = [];
      for (let i = lowerBound(sorted, key, target); i < sorted.length; i++) {
        const id = sorted[i] ?? 0;
        if (!key(id).startsWith(target)) break;
        holders.push({ id, offsets: [(this.#words[id] ?? '').length - word.length] });
      }
      return holders;
    }
    return this.#containing(word).map((id) => {
      const text = this.#words[id] ?? '';
      const offsets: number[] = [];
      for (let at = text.indexOf(word); at >= 0; at = text.indexOf(word, at + 1)) offsets.push(at);
      return { id, offsets };
    });
  }

  /** Ids of the words containing `word`: through a trigram's words when it has three or more units. */
  #containing(word: string): number[] {
    if (word.length < 3) {
      return this.#words.flatMap((text, id) => (text.includes(word) ? [id] : []));
    }
    const trigrams = (this.#trigrams ??= this.#indexTrigrams());
    let rarest: number[] = [];
    for (let i = 0; i + 3 <= word.length; i++) {
      const ids = trigrams.get(word.slice(i, i + 3)) ?? [];
      if (i === 0 || ids.length < rarest.length) rarest = ids;
      if (ids.length === 0) return [];
    }
    return rarest.filter((id) => (this.#words[id] ?? '').includes(word));
  }

  #indexTrigrams(): Map<string, number[]> {
    const trigrams = new Map<string, number[]>();
    this.#words.forEach((text, id) => {
      const seen = new Set<string>();
      for (let i = 0; i + 3 <= text.length; i++) {
        const trigram = text.slice(i, i + 3);
        if (seen.has(trigram)) continue;
        seen.add(trigram);
        const ids = trigrams.get(trigram);
        if (ids) ids.push(id);
        else trigrams.set(trigram, [id]);
      }
    });
    return trigrams;
  }

  #sortedBy(key: (id: number) => string): Int32Array {
    return Int32Array.from(this.#words.keys()).sort((a, b) => (key(a) < key(b) ? -1 : 1));
  }
}
