// Lays a reader's text items (PDFium's words, pdf.js' runs) out as one plain text (the noisy parser output the task is about) and
// keeps, for every item, where its characters sit in that text and on the page, so any character
// range maps back to boxes on the PDF. Two repairs only: separators where pdf.js gives none
// (a jump to another line, a visible gap) and spacing accents composed with their letter ("F¨arber").
import type { RawItem, RawPdf } from './raw-pdf.ts';

/** One text run: its characters are fullText.slice(start, start + length). */
export interface PlacedRun {
  page: number;
  start: number;
  length: number;
  x: number;
  y: number;
  width: number;
  height: number;
  size: number;
  rotated: boolean;
}

export interface TextLayout {
  fullText: string;
  pageStarts: number[];
  pageSizes: { width: number; height: number }[];
  /** Runs in text order (so sorted by start). */
  runs: PlacedRun[];
}

export const pageSeparator = '\n\n';

/** Spacing accents TeX fonts draw as separate glyphs, and the combining marks they stand for. */
const spacingAccents: Record<string, string> = {
  '\u00A8': '\u0308', // diaeresis
  '\u00B4': '\u0301', // acute
  '`': '\u0300', // grave
  '\u02C6': '\u0302', // circumflex
  '\u02DC': '\u0303', // tilde
  '\u00B8': '\u0327', // cedilla
  '\u02C7': '\u030C', // caron
  '\u02D8': '\u0306', // breve
  '\u02DA': '\u030A', // ring
  '\u02DD': '\u030B', // double acute
};
const accentBeforeLetter = new RegExp(`([${Object.keys(spacingAccents).join('')}])(\\p{L})`, 'gu');

export function composeAccents(text: string): string {
  return text.replace(accentBeforeLetter, (_m, accent: string, letter: string) =>
    (letter + (spacingAccents[accent] ?? '')).normalize('NFC'),
  );
}

function separatorBetween(previous: RawItem, next: RawItem): '' | ' ' | '\n' {
  const overlap =
    Math.min(previous.y + previous.height, next.y + next.height) - Math.max(previous.y, next.y);
  if (overlap <= 0) return '\n';
  const gap = next.x - (previous.x + previous.width);
  if (gap > 0.2 * Math.max(previous.size, next.size)) return ' ';
  // A footnote or affiliation mark before a word ("¹Instructions") is not part of the word.
  if (previous.size < 0.75 * next.size && gap >= 0) return ' ';
  if (gap < -2 * Math.max(previous.size, next.size)) return '\n';
  return '';
}

export function layoutText(pdf: RawPdf): TextLayout {
  const parts: string[] = [];
  const runs: PlacedRun[] = [];
  const pageStarts: number[] = [];
  let offset = 0;
  let lastChar = '\n';
  const push = (text: string) => {
    parts.push(text);
    offset += text.length;
    lastChar = text.at(-1) ?? lastChar;
  };
  pdf.pages.forEach((page, pageIndex) => {
    if (pageIndex > 0) push(pageSeparator);
    pageStarts.push(offset);
    let previous: RawItem | undefined;
    let pendingAccent = '';
    for (const item of page.items) {
      let str = item.str;
      if (str.length > 0) {
        if (pendingAccent) str = composeAccents(pendingAccent + str);
        pendingAccent = '';
        str = composeAccents(str);
        const trailing = str.at(-1) ?? '';
        if (trailing in spacingAccents && !item.eol) {
          // The accent belongs to the first letter of the next item ("F¨" + "arber").
          pendingAccent = trailing;
          str = str.slice(0, -1);
          if (str.length === 0) continue;
        }
        if (previous && !/\s/.test(lastChar)) {
          const separator = separatorBetween(previous, item);
          if (separator === '' && item.spaceBefore) push(' ');
          else if (separator && !/^\s/.test(str)) push(separator);
        }
        runs.push({
          page: pageIndex,
          start: offset,
          length: str.length,
          x: item.x,
          y: item.y,
          width: item.width,
          height: item.height,
          size: item.size,
          rotated: item.rotated,
        });
        push(str);
        previous = item;
      }
      if (item.eol && previous && lastChar !== '\n') push('\n');
    }
    if (pendingAccent) push(pendingAccent);
  });
  return {
    fullText: parts.join(''),
    pageStarts,
    pageSizes: pdf.pages.map(({ width, height }) => ({ width, height })),
    runs,
  };
}
