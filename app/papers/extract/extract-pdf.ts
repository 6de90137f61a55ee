// PDF bytes -> PdfExtraction in the calling thread (tests and tools; ingestion uses the pool).
import {
  checkPdfBytes,
  extractionFromRaw,
  readFailureError,
  type PdfExtraction,
} from './extraction.ts';
import { PdfReadError, readPdf } from './pdf-reader.ts';

export type { PdfExtraction } from './extraction.ts';

export async function extractPdf(input: string, data: Uint8Array): Promise<PdfExtraction> {
  checkPdfBytes(input, data);
  try {
    return extractionFromRaw(input, await readPdf(data));
  } catch (error) {
    if (error instanceof PdfReadError) throw readFailureError(input, error.reason, error.message);
    throw error;
  }
}
