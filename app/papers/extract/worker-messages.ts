// Messages between the extraction pool and its workers, unions on `kind`. A job reads a range of
// pages of one document; a worker keeps the documents it has opened until told to close them.
import type { ExtractEngine } from './extraction.ts';
import type { PdfReadFailure, RawPage, RawPdf } from './raw-pdf.ts';

/** What a worker starts with: the module compile cache folder, when its parent uses one. */
export interface ExtractWorkerData {
  compileCacheDir: string | undefined;
}

export type WorkerRequest =
  | {
      kind: 'readPages';
      jobId: number;
      docId: number;
      engine: ExtractEngine;
      data: Uint8Array;
      from: number;
      to: number;
    }
  | { kind: 'close'; docId: number };

export type WorkerReply =
  | { kind: 'pages'; jobId: number; numPages: number; info: RawPdf['info']; pages: RawPage[] }
  | { kind: 'failed'; jobId: number; reason: PdfReadFailure | 'crash'; message: string };
