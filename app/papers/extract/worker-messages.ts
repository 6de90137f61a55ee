// Messages between the extraction pool and its workers, a union on `kind`.
import type { PdfExtraction } from './extract-pdf.ts';

export interface WorkerRequest {
  kind: 'extract';
  id: number;
  input: string;
  data: ArrayBuffer;
}

export type WorkerReply =
  | { kind: 'extracted'; id: number; result: PdfExtraction }
  | { kind: 'failed'; id: number; error: { name: string; message: string } };
