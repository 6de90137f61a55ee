// PDF bytes -> PdfExtraction in the calling thread (tests and tools; ingestion uses the pool).
import {
  checkPdfBytes,
  defaultExtractEngine,
  extractionFromRaw,
  readFailureError,
  type ExtractEngine,
  type PdfExtraction,
} from './extraction.ts';
import { PdfReadError, type OpenPdf, type RawPdf } from './raw-pdf.ts';

export type { PdfExtraction } from './extraction.ts';

async function open(engine: ExtractEngine, data: Uint8Array): Promise<OpenPdf> {
  if (engine === 'pdfium') return (await import('./pdfium-reader.ts')).openPdfium(data);
  return (await import('./pdf-reader.ts')).openPdf(data);
}

/** The whole document's raw pages in this thread, the document closed on every path. */
export async function readRawPdf(data: Uint8Array, engine: ExtractEngine): Promise<RawPdf> {
  const pdf = await open(engine, data);
  try {
    return { pages: await pdf.readPages(1, pdf.numPages), info: pdf.info };
  } finally {
    await pdf.close();
  }
}

export async function extractPdf(
  input: string,
  data: Uint8Array,
  engine: ExtractEngine = defaultExtractEngine,
): Promise<PdfExtraction> {
  checkPdfBytes(input, data);
  try {
    return extractionFromRaw(input, await readRawPdf(data, engine), engine);
  } catch (error) {
    if (error instanceof PdfReadError) throw readFailureError(input, error.reason, error.message);
    throw error;
  }
}
