// A pool of extraction worker threads (one per core by default). Jobs queue; each worker takes the
// next when it finishes, so putting the biggest files first balances the cores. A crashed worker
// fails only its job and is replaced. dispose() ends every worker.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { PdfExtraction } from './extract-pdf.ts';
import type { WorkerReply, WorkerRequest } from './worker-messages.ts';

/** An error raised inside a worker, rebuilt with its name and message. */
export class ExtractionError extends Error {
  constructor(name: string, message: string) {
    super(message);
    this.name = name;
  }
}

interface Job {
  id: number;
  input: string;
  data: Uint8Array;
  resolve: (result: PdfExtraction) => void;
  reject: (error: Error) => void;
}

interface Slot {
  worker: Worker;
  job: Job | null;
}

const workerUrl = new URL('./extract-worker.ts', import.meta.url);

export class ExtractionPool {
  readonly size: number;
  #slots: Slot[] = [];
  #queue: Job[] = [];
  #nextId = 1;
  #disposed = false;

  constructor(size = availableParallelism()) {
    this.size = Math.max(1, size);
  }

  extract(input: string, data: Uint8Array): Promise<PdfExtraction> {
    if (this.#disposed) return Promise.reject(new Error('The extraction pool was disposed'));
    return new Promise((resolve, reject) => {
      this.#queue.push({ id: this.#nextId++, input, data, resolve, reject });
      this.#pump();
    });
  }

  async dispose(): Promise<void> {
    this.#disposed = true;
    for (const job of this.#queue) job.reject(new Error('The extraction pool was disposed'));
    this.#queue = [];
    await Promise.all(this.#slots.map((slot) => slot.worker.terminate()));
    this.#slots = [];
  }

  #pump(): void {
    while (this.#queue.length > 0) {
      let slot = this.#slots.find((candidate) => candidate.job === null);
      if (!slot && this.#slots.length < this.size) slot = this.#spawn();
      if (!slot) return;
      const job = this.#queue.shift();
      if (!job) return;
      slot.job = job;
      // Copy into a transferable buffer of exactly the file's bytes.
      const data = job.data.slice().buffer;
      const request: WorkerRequest = { kind: 'extract', id: job.id, input: job.input, data };
      slot.worker.postMessage(request, [data]);
    }
  }

  #spawn(): Slot {
    const worker = new Worker(workerUrl);
    const slot: Slot = { worker, job: null };
    worker.on('message', (reply: WorkerReply) => {
      const job = slot.job;
      slot.job = null;
      if (job?.id === reply.id) {
        if (reply.kind === 'extracted') job.resolve(reply.result);
        else job.reject(new ExtractionError(reply.error.name, reply.error.message));
      }
      this.#pump();
    });
    worker.on('error', (error: Error) => {
      slot.job?.reject(
        new ExtractionError(
          'ExtractionWorkerCrashedError',
          `the extraction worker crashed on '${slot.job.input}': ${error.message}`,
        ),
      );
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
