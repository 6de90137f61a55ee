// The state of one import, as a pure reducer: it may run as several requests (batches), each with
// its own importId; progress events fill in results as files finish, and each request's answer is
// the final word on its batch (events can be missed, answers cannot).
import type { IngestResult } from '../../../../app/api/index.ts';

export interface ImportBatchState {
  importId: string;
  /** Inputs in the batch: what was sent, until the engine counts them (a folder holds many). */
  files: number;
  done: number;
  results: IngestResult[];
}

export type ImportStatus = 'running' | 'canceling' | 'finished' | 'canceled' | 'failed';

export interface ImportJob {
  set: string;
  status: ImportStatus;
  batches: ImportBatchState[];
  /** Results decided before sending (a file too large to upload). */
  localResults: IngestResult[];
  /** Why the import stopped, when a request itself failed (not one file). */
  error: { name: string; message: string } | undefined;
}

export type ImportAction =
  | {
      kind: 'started';
      set: string;
      batches: { importId: string; files: number }[];
      localResults: IngestResult[];
    }
  | {
      kind: 'progress';
      importId: string;
      done: number;
      total: number;
      result: IngestResult | undefined;
    }
  | { kind: 'batchFinished'; importId: string; results: IngestResult[] }
  | { kind: 'finished' }
  | { kind: 'cancel' }
  | { kind: 'failed'; error: { name: string; message: string } };

export function reduceImport(job: ImportJob | null, action: ImportAction): ImportJob | null {
  if (action.kind === 'started') {
    return {
      set: action.set,
      status: 'running',
      batches: action.batches.map((batch) => ({ ...batch, done: 0, results: [] })),
      localResults: action.localResults,
      error: undefined,
    };
  }
  if (!job) return job;
  switch (action.kind) {
    case 'progress':
      return updateBatch(job, action.importId, (batch) => ({
        ...batch,
        files: action.total,
        done: Math.max(batch.done, action.done),
        results: action.result ? [...batch.results, action.result] : batch.results,
      }));
    case 'batchFinished':
      return updateBatch(job, action.importId, (batch) => ({
        ...batch,
        done: batch.files,
        results: action.results,
      }));
    case 'cancel':
      return job.status === 'running' ? { ...job, status: 'canceling' } : job;
    case 'finished':
      return { ...job, status: job.status === 'canceling' ? 'canceled' : 'finished' };
    case 'failed':
      return { ...job, status: 'failed', error: action.error };
  }
}

function updateBatch(
  job: ImportJob,
  importId: string,
  update: (batch: ImportBatchState) => ImportBatchState,
): ImportJob {
  if (!job.batches.some((batch) => batch.importId === importId)) return job;
  return {
    ...job,
    batches: job.batches.map((batch) => (batch.importId === importId ? update(batch) : batch)),
  };
}

export interface ImportTotals {
  /** Inputs (files or arXiv ids) finished, of `total`. */
  done: number;
  total: number;
  results: IngestResult[];
}

export function importTotals(job: ImportJob): ImportTotals {
  const local = job.localResults.length;
  return {
    done: local + job.batches.reduce((sum, batch) => sum + batch.done, 0),
    total: local + job.batches.reduce((sum, batch) => sum + batch.files, 0),
    results: [...job.localResults, ...job.batches.flatMap((batch) => batch.results)],
  };
}
