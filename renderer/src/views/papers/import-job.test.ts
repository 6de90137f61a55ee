// The import reducer: progress from events, answers as the final word, totals across batches.
import { describe, expect, it } from 'vitest';
import type { IngestResult } from '../../../../app/api/index.ts';
import { importTotals, reduceImport, type ImportJob } from './import-job.ts';

const added = (input: string): IngestResult => ({ input, outcome: 'added', paperId: input });
const notPdf: IngestResult = {
  input: 'notes.txt',
  outcome: 'failed',
  error: { name: 'NotAPdfError', message: "'notes.txt' is not a PDF" },
};

function started(): ImportJob | null {
  return reduceImport(null, {
    kind: 'started',
    set: 'demo',
    batches: [
      { importId: 'i1', files: 2 },
      { importId: 'i2', files: 1 },
    ],
    localResults: [],
  });
}

describe('reduceImport', () => {
  it('counts progress across batches and ignores other imports', () => {
    let job = started();
    job = reduceImport(job, {
      kind: 'progress',
      importId: 'i1',
      done: 1,
      total: 2,
      result: added('a'),
    });
    job = reduceImport(job, {
      kind: 'progress',
      importId: 'other',
      done: 5,
      total: 9,
      result: added('x'),
    });
    expect(job && importTotals(job)).toEqual({ done: 1, total: 3, results: [added('a')] });
  });

  it("takes a batch's answer as final, even when events were missed", () => {
    let job = started();
    job = reduceImport(job, {
      kind: 'progress',
      importId: 'i1',
      done: 1,
      total: 2,
      result: added('a'),
    });
    job = reduceImport(job, {
      kind: 'batchFinished',
      importId: 'i1',
      results: [added('a'), notPdf],
    });
    job = reduceImport(job, { kind: 'batchFinished', importId: 'i2', results: [added('c')] });
    job = reduceImport(job, { kind: 'finished' });
    expect(job?.status).toBe('finished');
    expect(job && importTotals(job)).toEqual({
      done: 3,
      total: 3,
      results: [added('a'), notPdf, added('c')],
    });
  });

  it('keeps results decided locally first, and records why a request failed', () => {
    let job = reduceImport(null, {
      kind: 'started',
      set: 'demo',
      batches: [{ importId: 'i1', files: 1 }],
      localResults: [notPdf],
    });
    job = reduceImport(job, {
      kind: 'failed',
      error: { name: 'ApiDisconnectedError', message: 'lost' },
    });
    expect(job?.status).toBe('failed');
    expect(job?.error?.name).toBe('ApiDisconnectedError');
    expect(job && importTotals(job)).toMatchObject({ done: 1, total: 2, results: [notPdf] });
  });

  it("counts a folder's files once the engine reports them", () => {
    let job = reduceImport(null, {
      kind: 'started',
      set: 'demo',
      batches: [{ importId: 'i1', files: 1 }],
      localResults: [],
    });
    job = reduceImport(job, {
      kind: 'progress',
      importId: 'i1',
      done: 1,
      total: 4,
      result: added('a'),
    });
    expect(job && importTotals(job)).toMatchObject({ done: 1, total: 4 });
  });

  it('does nothing before an import starts', () => {
    expect(reduceImport(null, { kind: 'finished' })).toBeNull();
  });

  it('is canceling once asked and canceled when its requests have answered', () => {
    let job = reduceImport(null, {
      kind: 'started',
      set: 'demo',
      batches: [{ importId: 'i1', files: 3 }],
      localResults: [],
    });
    job = reduceImport(job, { kind: 'cancel' });
    expect(job?.status).toBe('canceling');
    job = reduceImport(job, { kind: 'batchFinished', importId: 'i1', results: [added('a')] });
    job = reduceImport(job, { kind: 'finished' });
    expect(job?.status).toBe('canceled');
    // A cancel after the end changes nothing.
    expect(reduceImport(job, { kind: 'cancel' })?.status).toBe('canceled');
  });
});
