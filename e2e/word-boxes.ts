// Words of a PDF page as boxes in PDF points from the page's top-left corner, from any reading
// (the reader's text layer, PDFium's stored words, poppler's glyphs), and how well two readings
// agree: the papers browser test and bench/text-layer.ts compare them the same way.
import { execFileSync } from 'node:child_process';

export interface Box {
  text: string;
  x: number;
  y: number;
  width: number;
  height: number;
}

/** A word of three letters or more, the unit every reading is compared in. */
export const isWord = (text: string): boolean => /^\p{L}{3,}$/u.test(text);

/** Poppler's tokens of each page (`pdftotext -bbox`), or of one page (0-based) when given. */
export function popplerTokens(file: string, pageIndex?: number): Box[][] {
  const range =
    pageIndex === undefined ? [] : ['-f', String(pageIndex + 1), '-l', String(pageIndex + 1)];
  const html = execFileSync('pdftotext', ['-q', '-bbox', ...range, file, '-'], {
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  });
  return html
    .split('<page ')
    .slice(1)
    .map((page) =>
      [
        ...page.matchAll(
          /<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)<\/word>/g,
        ),
      ].map((m) => ({
        text: m[5] ?? '',
        x: Number(m[1]),
        y: Number(m[2]),
        width: Number(m[3]) - Number(m[1]),
        height: Number(m[4]) - Number(m[2]),
      })),
    );
}

export interface Agreement {
  /** `ours`' words the reference has at all on that page. */
  words: number;
  /** Of those, the ones the reference has overlapping them (the same word, where it is). */
  found: number;
  /** Of those, the ones whose left and right edges are both within 2 pt of the reference's. */
  within: number;
}

/** How well `ours` agrees with the reference, page by page (each pair is one page). */
export function agreement(pages: readonly (readonly [Box[], Box[]])[]): Agreement {
  const result = { words: 0, found: 0, within: 0 };
  for (const [ours, reference] of pages)
    for (const word of ours) {
      if (!reference.some((other) => other.text === word.text)) continue;
      result.words++;
      const same = reference.find(
        (other) =>
          other.text === word.text &&
          Math.min(other.x + other.width, word.x + word.width) > Math.max(other.x, word.x) &&
          Math.min(other.y + other.height, word.y + word.height) > Math.max(other.y, word.y),
      );
      if (!same) continue;
      result.found++;
      if (
        Math.abs(same.x - word.x) <= 2 &&
        Math.abs(same.x + same.width - (word.x + word.width)) <= 2
      )
        result.within++;
    }
  return result;
}
