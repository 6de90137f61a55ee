// A paper's stored form, whatever it came from (PDF or QASPER), and the text the REPL sees.
import type { PaperEngine, Section } from '../api/index.ts';

/** Runs packed 7 numbers each: page, start, length, x, y, width, height. */
export const runStride = 7;

export interface PaperDocument {
  sha256: string;
  kind: 'pdf' | 'qasper';
  /** What read it: a PDF engine ('pdfium', 'pdf.js'), or 'qasper' for QASPER's own text. */
  engine: PaperEngine;
  title: string;
  authors: string[];
  abstract: string;
  fullText: string;
  sections: Section[];
  pageStarts: number[];
  pageSizes: { width: number; height: number }[];
  /** Packed runs (see runStride); empty for QASPER papers. */
  runs: Float64Array;
  pages: number;
  words: number;
  pdf: Uint8Array | null;
}

/** Bumped when extraction changes, so cached text of an older extractor is parsed again. */
export const extractorVersion = 1;

export function contextPrefix(title: string, abstract: string): string {
  return `### PAPER: ${title}\n\n${abstract.length > 0 ? `${abstract}\n\n` : ''}`;
}

/** The text the REPL sees: the `### PAPER:` header, the abstract, then the full text. */
export function contextText(
  title: string,
  abstract: string,
  fullText: string,
): { text: string; offset: number } {
  const prefix = contextPrefix(title, abstract);
  return { text: prefix + fullText, offset: prefix.length };
}

export function packRuns(
  runs: readonly {
    page: number;
    start: number;
    length: number;
    x: number;
    y: number;
    width: number;
    height: number;
  }[],
): Float64Array {
  const packed = new Float64Array(runs.length * runStride);
  runs.forEach((run, index) => {
    packed.set(
      [run.page, run.start, run.length, run.x, run.y, run.width, run.height],
      index * runStride,
    );
  });
  return packed;
}

export function countWords(text: string): number {
  return text.split(/\s+/).filter((word) => /[\p{L}\p{N}]/u.test(word)).length;
}
