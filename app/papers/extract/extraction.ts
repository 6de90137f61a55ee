// From a reader's raw pages (PDFium's or pdf.js') to what ingestion stores, and the named errors for what went wrong.
// Pure (no engine import), so the main thread can assemble pages read by several workers.
import type { Section } from '../../api/index.ts';
import { countWords } from '../document.ts';
import {
  EmptyFileError,
  NotAPdfError,
  PdfCorruptError,
  PdfEncryptedError,
  PdfNoPagesError,
  PdfNoTextLayerError,
  PdfTruncatedError,
} from '../errors.ts';
import { splitLines } from './lines.ts';
import type { PdfReadFailure, RawPdf } from './raw-pdf.ts';
import { detectStructure } from './structure.ts';
import { layoutText, type PlacedRun } from './text-layout.ts';

/**
 * Which engine read a PDF: PDFium (WebAssembly) does ingestion; pdf.js draws the reader and read
 * the papers of workspaces made before PDFium (they are read again only when asked).
 */
export const extractEngines = ['pdfium', 'pdf.js'] as const;
export type ExtractEngine = (typeof extractEngines)[number];
export const defaultExtractEngine: ExtractEngine = 'pdfium';

export interface PdfExtraction {
  engine: ExtractEngine;
  title: string;
  authors: string[];
  abstract: string;
  fullText: string;
  sections: Section[];
  pageStarts: number[];
  pageSizes: { width: number; height: number }[];
  runs: PlacedRun[];
  pages: number;
  words: number;
}

const pdfHeader = Buffer.from('%PDF-');
const eofMarker = Buffer.from('%%EOF');

/** Checks that need no parser: empty, not a PDF, cut off before its end. */
export function checkPdfBytes(input: string, data: Uint8Array): void {
  if (data.length === 0) throw new EmptyFileError(input);
  const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  if (bytes.subarray(0, 1024).indexOf(pdfHeader) < 0) throw new NotAPdfError(input);
  if (bytes.subarray(Math.max(0, bytes.length - 4096)).indexOf(eofMarker) < 0) {
    throw new PdfTruncatedError(input);
  }
}

export function readFailureError(
  input: string,
  reason: PdfReadFailure | 'crash',
  message: string,
): Error {
  switch (reason) {
    case 'password':
      return new PdfEncryptedError(input);
    case 'no-pages':
      return new PdfNoPagesError(input);
    case 'invalid':
    case 'unreadable-page':
    case 'crash':
      return new PdfCorruptError(input, message);
  }
}

export function extractionFromRaw(
  input: string,
  raw: RawPdf,
  engine: ExtractEngine,
): PdfExtraction {
  const layout = layoutText(raw);
  if (!hasLetters(layout.fullText, 50)) throw new PdfNoTextLayerError(input, raw.pages.length);
  const structure = detectStructure(
    layout.fullText,
    splitLines(layout),
    raw.pages[0]?.height ?? 792,
    raw.info.title,
  );
  return {
    engine,
    ...structure,
    fullText: layout.fullText,
    pageStarts: layout.pageStarts,
    pageSizes: layout.pageSizes,
    runs: layout.runs,
    pages: raw.pages.length,
    words: countWords(layout.fullText),
  };
}

/** Whether `text` holds at least `count` letters (stops counting there: papers hold millions). */
function hasLetters(text: string, count: number): boolean {
  const letter = /\p{L}/gu;
  for (let found = 0; found < count; found++) {
    if (!letter.test(text)) return false;
  }
  return true;
}
