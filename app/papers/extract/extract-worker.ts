// An extraction worker thread: reads ranges of pages with PDFium or pdf.js (the request names the
// engine) and sends back their text items. It keeps each document it opened (by docId) so later
// ranges of the same paper skip the parse; `close` frees it (PDFium's wasm memory included).
import { enableCompileCache } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';
import type { ExtractEngine } from './extraction.ts';
import { PdfReadError, type OpenPdf } from './raw-pdf.ts';
import type { ExtractWorkerData, WorkerReply, WorkerRequest } from './worker-messages.ts';

const port = parentPort;
if (!port) throw new Error('extract-worker.ts runs only as a worker thread');

// The readers are imported once the compile cache is on, so that their modules load from it; each
// only when a request names it (a PDFium worker never loads pdf.js, and the other way round).
const compileCacheDir = (workerData as ExtractWorkerData | undefined)?.compileCacheDir;
if (compileCacheDir) enableCompileCache(compileCacheDir);
async function openWith(engine: ExtractEngine, data: Uint8Array): Promise<OpenPdf> {
  if (engine === 'pdfium') return (await import('./pdfium-reader.ts')).openPdfium(data);
  return (await import('./pdf-reader.ts')).openPdf(data);
}

const open = new Map<number, Promise<OpenPdf>>();

async function answer(
  request: Extract<WorkerRequest, { kind: 'readPages' }>,
): Promise<WorkerReply> {
  let pdf = open.get(request.docId);
  if (!pdf) {
    pdf = openWith(request.engine, request.data);
    open.set(request.docId, pdf);
  }
  try {
    const document = await pdf;
    const pages = await document.readPages(request.from, request.to);
    return {
      kind: 'pages',
      jobId: request.jobId,
      numPages: document.numPages,
      info: document.info,
      pages,
    };
  } catch (error) {
    const reason = error instanceof PdfReadError ? error.reason : 'crash';
    // A document that failed to open is not kept (nothing of it is left to free).
    if (!(await pdf.then(() => true).catch(() => false))) open.delete(request.docId);
    return {
      kind: 'failed',
      jobId: request.jobId,
      reason,
      message: error instanceof Error ? error.message : String(error),
    };
  }
}

port.on('message', (request: WorkerRequest) => {
  if (request.kind === 'close') {
    const pdf = open.get(request.docId);
    open.delete(request.docId);
    void pdf?.then((document) => document.close()).catch(() => undefined);
    return;
  }
  void answer(request).then((reply) => {
    port.postMessage(reply);
  });
});
