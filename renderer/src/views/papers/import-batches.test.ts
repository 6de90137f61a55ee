// Batching uploads under the WebSocket frame limit.
import { describe, expect, it } from 'vitest';
import { base64Length, ImportFileTooLargeError, planImportBatches } from './import-batches.ts';

const file = (name: string, size: number) => ({ name, size });

describe('planImportBatches', () => {
  it('keeps small files together and starts a new batch before the limit', () => {
    const files = [file('a', 300), file('b', 300), file('c', 300)];
    const plan = planImportBatches(files, base64Length(600));
    expect(plan.batches.map((batch) => batch.map((f) => f.name))).toEqual([['a', 'b'], ['c']]);
    expect(plan.tooLarge).toEqual([]);
  });

  it('sets aside a file that cannot fit even alone, and keeps the order of the rest', () => {
    const files = [file('a', 10), file('huge', 10_000), file('b', 10)];
    const plan = planImportBatches(files, 1000);
    expect(plan.batches).toEqual([[files[0], files[2]]]);
    expect(plan.tooLarge).toEqual([files[1]]);
  });

  it('plans nothing for no files', () => {
    expect(planImportBatches([])).toEqual({ batches: [], tooLarge: [] });
  });

  it('names the file and the way out in its error', () => {
    const error = new ImportFileTooLargeError('big.pdf', 40 * 1024 * 1024, 12 * 1024 * 1024);
    expect(error.name).toBe('ImportFileTooLargeError');
    expect(error.message).toMatch(/'big\.pdf' is 40\.0 MB.*9\.0 MB.*rlm-studio ingest/);
  });
});
