// An extraction worker thread: reads ranges of pages with pdf.js and sends back their text items.
// It keeps each document it opened (by docId) so later ranges of the same paper skip the parse.
import { enableCompileCache } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';
import type { OpenPdf } from './pdf-reader.ts';
import type { ExtractWorkerData, WorkerReply, WorkerRequest } from './worker-messages.ts';

const port = parentPort;
if (!port) throw new Error('extract-worker.ts runs only as a worker thread');

// pdf.js is imported once the compile cache is on, so that its modules load from the cache.
const compileCacheDir = (workerData as ExtractWorkerData | undefined)?.compileCacheDir;
if (compileCacheDir) enableCompileCache(compileCacheDir);
const reader = import('./pdf-reader.ts');

const open = new Map<number, Promise<OpenPdf>>();

async function answer(
  request: Extract<WorkerRequest, { kind: 'readPages' }>,
): Promise<WorkerReply> {
  const { openPdf, PdfReadError } = await reader;
  let pdf = open.get(request.docId);
  if (!pdf) {
    pdf = openPdf(request.data);
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
