// A pool of extraction worker threads (one per core by default). A paper is read in ranges of
// pages that any worker may take, so one long paper keeps every core busy; the ranges are then
// laid out in this thread. A crashed worker fails only its job and is replaced; dispose() ends all.
import { getCompileCacheDir } from 'node:module';
import { availableParallelism } from 'node:os';
import { defineChild, startWorker } from '../../children/index.ts';
import {
  checkPdfBytes,
  defaultExtractEngine,
  extractionFromRaw,
  readFailureError,
  type ExtractEngine,
  type PdfExtraction,
} from './extraction.ts';
import type { RawPage, RawPdf } from './raw-pdf.ts';
import type { ExtractWorkerData, WorkerReply, WorkerRequest } from './worker-messages.ts';

/**
 * Pages per job: most papers are one job, read by one worker, since every worker that touches a
 * paper parses it and its fonts again (measured on the 20 shared papers: ranges of 8 pages cost
 * about 12% more CPU than whole papers); a long paper still spreads over the cores.
 */
export const pagesPerJob = 24;

/**
 * pdf.js allocates many short-lived objects per glyph: a young generation larger than V8's
 * default collects less often (about 8% less CPU on the shared papers).
 */
const workerResourceLimits = { maxYoungGenerationSizeMb: 32 };

type PagesReply = Extract<WorkerReply, { kind: 'pages' }>;

interface Job {
  request: Extract<WorkerRequest, { kind: 'readPages' }>;
  resolve: (reply: PagesReply) => void;
  reject: (error: ReadFailure) => void;
}

class ReadFailure extends Error {
  readonly reason: Extract<WorkerReply, { kind: 'failed' }>['reason'];
  constructor(reason: ReadFailure['reason'], message: string) {
    super(message);
    this.reason = reason;
  }
}

interface Slot {
  worker: ReturnType<typeof startWorker>;
  job: Job | null;
  docs: Set<number>;
}

/** The worker's source when run from the tree (Node 24 strips its types), else the bundled copy. */
/** The extraction worker: extract-worker.ts here, or extract-worker.cjs beside the desktop bundle. */
const extractWorker = defineChild(import.meta.url, {
  source: './extract-worker.ts',
  bundled: 'extract-worker.cjs',
});

export class ExtractionPool {
  readonly size: number;
  /** The engine a paper is read with unless `extract` names another. */
  readonly engine: ExtractEngine;
  #slots: Slot[] = [];
  #queue: Job[] = [];
  #nextJob = 1;
  #nextDoc = 1;
  #disposed = false;

  constructor(size = availableParallelism(), engine: ExtractEngine = defaultExtractEngine) {
    this.size = Math.max(1, size);
    this.engine = engine;
  }

  async extract(
    input: string,
    data: Uint8Array,
    engine: ExtractEngine = this.engine,
  ): Promise<PdfExtraction> {
    checkPdfBytes(input, data);
    const docId = this.#nextDoc++;
    const read = { docId, engine, data };
    try {
      const first = await this.#read(read, 1, pagesPerJob, 'back');
      const rest: Promise<PagesReply>[] = [];
      for (let from = pagesPerJob + 1; from <= first.numPages; from += pagesPerJob) {
        rest.push(this.#read(read, from, from + pagesPerJob - 1, 'front'));
      }
      const pages: RawPage[] = [
        ...first.pages,
        ...(await Promise.all(rest)).flatMap((reply) => reply.pages),
      ];
      const raw: RawPdf = { pages, info: first.info };
      return extractionFromRaw(input, raw, engine);
    } catch (error) {
      if (error instanceof ReadFailure) throw readFailureError(input, error.reason, error.message);
      throw error;
    } finally {
      for (const slot of this.#slots) {
        if (slot.docs.delete(docId))
          slot.worker.postMessage({ kind: 'close', docId } satisfies WorkerRequest);
      }
    }
  }

  async dispose(): Promise<void> {
    this.#disposed = true;
    for (const job of this.#queue)
      job.reject(new ReadFailure('crash', 'the extraction pool was disposed'));
    this.#queue = [];
    await Promise.all(this.#slots.map((slot) => slot.worker.terminate()));
    this.#slots = [];
  }

  #read(
    { docId, engine, data }: { docId: number; engine: ExtractEngine; data: Uint8Array },
    from: number,
    to: number,
    end: 'front' | 'back',
  ): Promise<PagesReply> {
    if (this.#disposed)
      return Promise.reject(new ReadFailure('crash', 'the extraction pool was disposed'));
    return new Promise((resolve, reject) => {
      const job: Job = {
        request: { kind: 'readPages', jobId: this.#nextJob++, docId, engine, data, from, to },
        resolve,
        reject,
      };
      if (end === 'front') this.#queue.unshift(job);
      else this.#queue.push(job);
      this.#pump();
    });
  }

  #pump(): void {
    while (this.#queue.length > 0) {
      let slot = this.#slots.find((candidate) => candidate.job === null);
      if (!slot && this.#slots.length < this.size) slot = this.#spawn();
      if (!slot) return;
      const job = this.#queue.shift();
      if (!job) return;
      slot.job = job;
      slot.docs.add(job.request.docId);
      slot.worker.postMessage(job.request);
    }
  }

  #spawn(): Slot {
    // A worker does not inherit this thread's module compile cache (bin/rlm-studio.js): handing it
    // the folder halves its start (pdf.js compiled from the cache, ~150 -> ~75 ms).
    const workerData: ExtractWorkerData = { compileCacheDir: getCompileCacheDir() };
    const worker = startWorker(extractWorker, { resourceLimits: workerResourceLimits, workerData });
    const slot: Slot = { worker, job: null, docs: new Set() };
    worker.on('message', (reply: WorkerReply) => {
      const job = slot.job;
      slot.job = null;
      if (job?.request.jobId === reply.jobId) {
        if (reply.kind === 'pages') job.resolve(reply);
        else job.reject(new ReadFailure(reply.reason, reply.message));
      }
      this.#pump();
    });
    worker.on('error', (error: Error) => {
      slot.job?.reject(new ReadFailure('crash', `the extraction worker crashed: ${error.message}`));
      slot.job = null;
    });
    worker.on('exit', () => {
      this.#slots = this.#slots.filter((candidate) => candidate !== slot);
      if (!this.#disposed) this.#pump();
    });
    this.#slots.push(slot);
    return slot;
  }
}
