// PDF bytes -> everything ingestion stores about a paper. Runs inside an extraction worker; the
// checks before pdf.js give the named errors a user can act on.
import type { Section } from '../../api/index.ts';
import {
  EmptyFileError,
  NotAPdfError,
  PdfCorruptError,
  PdfEncryptedError,
  PdfNoPagesError,
  PdfNoTextLayerError,
  PdfTruncatedError,
} from '../errors.ts';
import { countWords } from '../document.ts';
import { splitLines } from './lines.ts';
import { PdfReadError, readPdf } from './pdf-reader.ts';
import { detectStructure } from './structure.ts';
import { layoutText, type PlacedRun } from './text-layout.ts';

export interface PdfExtraction {
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
  const header = bytes.subarray(0, 1024).indexOf(pdfHeader);
  if (header < 0) throw new NotAPdfError(input);
  if (bytes.subarray(Math.max(0, bytes.length - 4096)).indexOf(eofMarker) < 0)
    throw new PdfTruncatedError(input);
}

export async function extractPdf(input: string, data: Uint8Array): Promise<PdfExtraction> {
  checkPdfBytes(input, data);
  let raw;
  try {
    raw = await readPdf(data);
  } catch (error) {
    if (!(error instanceof PdfReadError)) throw error;
    switch (error.reason) {
      case 'password':
        throw new PdfEncryptedError(input);
      case 'no-pages':
        throw new PdfNoPagesError(input);
      case 'invalid':
      case 'unreadable-page':
        throw new PdfCorruptError(input, error.message);
    }
  }
  const layout = layoutText(raw);
  const letters = layout.fullText.match(/\p{L}/gu)?.length ?? 0;
  if (letters < 50) throw new PdfNoTextLayerError(input, raw.pages.length);
  const structure = detectStructure(
    layout.fullText,
    splitLines(layout),
    raw.pages[0]?.height ?? 792,
    raw.info.title,
  );
  return {
    ...structure,
    fullText: layout.fullText,
    pageStarts: layout.pageStarts,
    pageSizes: layout.pageSizes,
    runs: layout.runs,
    pages: raw.pages.length,
    words: countWords(layout.fullText),
  };
}
