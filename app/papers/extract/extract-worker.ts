// An extraction worker thread: PDF bytes in, PdfExtraction (or a named error) out. pdf.js keeps
// this thread busy, so a pool of these keeps every core busy on a set.
import { parentPort } from 'node:worker_threads';
import { extractPdf } from './extract-pdf.ts';
import type { WorkerReply, WorkerRequest } from './worker-messages.ts';

const port = parentPort;
if (!port) throw new Error('extract-worker.ts runs only as a worker thread');

port.on('message', (request: WorkerRequest) => {
  void (async () => {
    let reply: WorkerReply;
    try {
      const result = await extractPdf(request.input, new Uint8Array(request.data));
      reply = { kind: 'extracted', id: request.id, result };
    } catch (error) {
      const name = error instanceof Error ? error.name : 'Error';
      const message = error instanceof Error ? error.message : String(error);
      reply = { kind: 'failed', id: request.id, error: { name, message } };
    }
    port.postMessage(reply);
  })();
});
