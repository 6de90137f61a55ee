// Lines of the laid-out text with what heading and title detection need: where each line is in the
// text, on which page, at what height and in what font size.
import type { TextLayout } from './text-layout.ts';

export interface TextLine {
  start: number;
  end: number;
  text: string;
  page: number;
  /** Top of the line on its page. */
  y: number;
  x: number;
  /** Largest font size on the line. */
  size: number;
  rotated: boolean;
}

export function splitLines(layout: TextLayout): TextLine[] {
  const { fullText, runs } = layout;
  const lines: TextLine[] = [];
  let runIndex = 0;
  let lineStart = 0;
  while (lineStart <= fullText.length) {
    let lineEnd = fullText.indexOf('\n', lineStart);
    if (lineEnd < 0) lineEnd = fullText.length;
    let size = 0;
    let y = Number.POSITIVE_INFINITY;
    let x = Number.POSITIVE_INFINITY;
    let page = -1;
    let rotated = true;
    while (runIndex < runs.length && (runs[runIndex]?.start ?? Infinity) < lineEnd) {
      const run = runs[runIndex];
      runIndex++;
      if (!run || run.start < lineStart) continue;
      if (page < 0) page = run.page;
      size = Math.max(size, run.size);
      y = Math.min(y, run.y);
      x = Math.min(x, run.x);
      rotated &&= run.rotated;
    }
    const text = fullText.slice(lineStart, lineEnd);
    if (page >= 0 && text.trim().length > 0) {
      lines.push({ start: lineStart, end: lineEnd, text, page, y, x, size, rotated });
    }
    lineStart = lineEnd + 1;
  }
  return lines;
}

/** The most common font size of body lines (rounded to 0.5), weighted by characters. */
export function bodyFontSize(lines: readonly TextLine[]): number {
  const weight = new Map<number, number>();
  for (const line of lines) {
    if (line.rotated) continue;
    const key = Math.round(line.size * 2) / 2;
    weight.set(key, (weight.get(key) ?? 0) + line.text.length);
  }
  let best = 10;
  let bestWeight = -1;
  for (const [size, w] of weight) {
    if (w > bestWeight) {
      best = size;
      bestWeight = w;
    }
  }
  return best;
}
