// Files are handed on as they are read, so one file's work can fail while a later file is still
// being read: that failure must reach ingest()'s caller, not become an unhandled rejection (which
// ends a Node process with exit code 1: seen when `serve` was stopped during its sample install).
import { afterEach, describe, expect, it } from 'vitest';
import type { ExtractionPool } from './extract/pool.ts';
import { PaperIngestor, type IngestInput } from './ingest.ts';
import type { PaperStore } from './paper-store.ts';

class StoreClosedError extends Error {
  override readonly name = 'StoreClosedError';
}

const closedStore = {
  ensureSet: () => undefined,
  recordFailure: () => undefined,
  paperWithContent: () => {
    throw new StoreClosedError('the workspace was closed');
  },
} as unknown as PaperStore;

const noPool = (): ExtractionPool => {
  throw new Error('no extraction expected');
};

describe('PaperIngestor pipeline', () => {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  afterEach(() => {
    process.off('unhandledRejection', onUnhandled);
  });

  it('rejects with a failure of an early file while a later one is still being read', async () => {
    process.on('unhandledRejection', onUnhandled);
    const first: IngestInput = {
      name: 'a.pdf',
      size: 2,
      read: () => Promise.resolve(new Uint8Array([1, 2])),
    };
    const slow: IngestInput = {
      name: 'b.pdf',
      size: 1,
      read: () =>
        new Promise((resolve) => {
          setTimeout(() => {
            resolve(new Uint8Array([3]));
          }, 100);
        }),
    };
    const ingesting = new PaperIngestor(closedStore, noPool).ingest('s', [first, slow]);
    await expect(ingesting).rejects.toThrow(StoreClosedError);
    await new Promise((resolve) => setImmediate(resolve));
    expect(unhandled).toEqual([]);
  });
});
