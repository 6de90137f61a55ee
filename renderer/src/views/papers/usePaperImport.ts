// Runs imports into a paper set: files (read in the browser and sent in batches under the frame
// limit), paths (desktop dialogs) or arXiv ids, one import at a time, with progress from the
// engine's 'papers.importProgress' events. Batches go one after another so the engine's workers see
// one batch at a time; an import keeps going if the view is left, and its answers then go nowhere.
import { useCallback, useReducer, useRef } from 'react';
import type { IngestResult } from '../../../../app/api/index.ts';
import { useApi } from '../../api/ApiContext.tsx';
import { useApiEvent } from '../../api/useApiEvent.ts';
import { fileToBase64 } from './base64.ts';
import { describeFailure } from './failure.ts';
import {
  ImportFileTooLargeError,
  maxBatchBase64Bytes,
  planImportBatches,
} from './import-batches.ts';
import { reduceImport, type ImportJob } from './import-job.ts';

export interface PaperImport {
  job: ImportJob | null;
  busy: boolean;
  importFiles: (set: string, files: readonly File[]) => Promise<void>;
  importPaths: (set: string, paths: readonly string[]) => Promise<void>;
  importArxiv: (set: string, ids: readonly string[]) => Promise<void>;
  /** Cancels the running import: its batch in the engine stops reading, later batches are not sent. */
  cancel: () => void;
}

let importCount = 0;
function newImportId(): string {
  importCount += 1;
  return `ui-${Date.now().toString(36)}-${importCount.toString(36)}`;
}

interface ImportBatch {
  files: number;
  send: (importId: string) => Promise<{ results: IngestResult[] }>;
}

type ImportDispatch = (action: Parameters<typeof reduceImport>[1]) => void;

/** Sends each batch in turn; a request that fails stops the import and says why. */
/** The running import's batch ids, and whether it was canceled (one import at a time). */
interface Current {
  ids: string[];
  canceled: boolean;
}

const wasCanceled = (current: Current) => current.canceled;

async function runBatches(
  current: Current,
  dispatch: ImportDispatch,
  set: string,
  batches: ImportBatch[],
  localResults: IngestResult[],
): Promise<void> {
  const ids = batches.map(() => newImportId());
  current.ids = ids;
  current.canceled = false;
  dispatch({
    kind: 'started',
    set,
    batches: batches.map((batch, index) => ({ importId: ids[index] ?? '', files: batch.files })),
    localResults,
  });
  try {
    for (const [index, batch] of batches.entries()) {
      const importId = ids[index] ?? '';
      // Read through a call: cancel() sets it while the batches are awaited.
      if (wasCanceled(current)) {
        dispatch({ kind: 'batchFinished', importId, results: [] });
        continue;
      }
      const { results } = await batch.send(importId);
      dispatch({ kind: 'batchFinished', importId, results });
    }
    dispatch({ kind: 'finished' });
  } catch (error) {
    dispatch({ kind: 'failed', error: describeFailure(error) });
  }
}

/** Files as batches under the frame limit, and a failed result for each file too large for one. */
function fileBatches(
  api: ReturnType<typeof useApi>,
  set: string,
  files: readonly File[],
): { batches: ImportBatch[]; tooLarge: IngestResult[] } {
  // Over IPC (desktop) there is no frame limit; over the WebSocket the server's applies.
  const limit = api.transport === 'websocket' ? maxBatchBase64Bytes : Number.POSITIVE_INFINITY;
  const plan = planImportBatches(files, limit);
  const tooLarge = plan.tooLarge.map((file): IngestResult => {
    const error = new ImportFileTooLargeError(file.name, file.size, limit);
    return {
      input: file.name,
      outcome: 'failed',
      error: { name: error.name, message: error.message },
    };
  });
  const batches = plan.batches.map((batch) => ({
    files: batch.length,
    send: async (importId: string) => {
      const encoded = await Promise.all(
        batch.map(async (file) => ({
          name: file.name,
          dataBase64: await fileToBase64(file, file.name),
        })),
      );
      return api.call('papers.importFiles', { set, importId, files: encoded });
    },
  }));
  return { batches, tooLarge };
}

export function usePaperImport(): PaperImport {
  const api = useApi();
  const [job, dispatch] = useReducer(reduceImport, null);
  const current = useRef<Current>({ ids: [], canceled: false });
  const busy = job?.status === 'running' || job?.status === 'canceling';

  useApiEvent('papers.importProgress', (event) => {
    dispatch({
      kind: 'progress',
      importId: event.importId,
      done: event.done,
      total: event.total,
      result: event.result,
    });
  });

  const importFiles = useCallback(
    (set: string, files: readonly File[]) => {
      const { batches, tooLarge } = fileBatches(api, set, files);
      return runBatches(current.current, dispatch, set, batches, tooLarge);
    },
    [api],
  );
  const importPaths = useCallback(
    (set: string, paths: readonly string[]) =>
      runBatches(
        current.current,
        dispatch,
        set,
        [
          {
            files: paths.length,
            send: (importId) =>
              api.call('papers.importPaths', { set, importId, paths: [...paths] }),
          },
        ],
        [],
      ),
    [api],
  );
  const importArxiv = useCallback(
    (set: string, ids: readonly string[]) =>
      runBatches(
        current.current,
        dispatch,
        set,
        [
          {
            files: ids.length,
            send: (importId) => api.call('papers.importArxiv', { set, importId, ids: [...ids] }),
          },
        ],
        [],
      ),
    [api],
  );

  const cancel = useCallback(() => {
    current.current.canceled = true;
    dispatch({ kind: 'cancel' });
    for (const importId of current.current.ids)
      api.call('papers.cancelImport', { importId }).catch(() => undefined);
  }, [api]);

  return { job, busy, importFiles, importPaths, importArxiv, cancel };
}
