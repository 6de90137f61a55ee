// The papers commands of app/api, answered by app/papers. Imports report progress as events and
// drop the set's cached search indexes when they finish.
import type { ApiEvent, CommandArgs, CommandResponse, IngestResult } from '../../app/api/index.ts';
import { basename } from 'node:path';
import type { PaperLibrary, SetMaps, SetSearch } from '../../app/papers/index.ts';

type PaperCommand =
  | 'papers.sets'
  | 'papers.list'
  | 'papers.get'
  | 'papers.importFiles'
  | 'papers.importPaths'
  | 'papers.importArxiv'
  | 'papers.removeSet'
  | 'papers.cancelImport'
  | 'papers.reextract'
  | 'papers.pdf'
  | 'papers.highlight'
  | 'papers.search'
  | 'papers.keywordSearch'
  | 'papers.map';

export type PaperHandlers = {
  [C in PaperCommand]: (args: CommandArgs<C>) => Promise<CommandResponse<C>> | CommandResponse<C>;
};

/** The map's view of the workspace: how to draw a set, and the model folder set in Settings. */
export interface MapServices {
  maps: SetMaps;
  embeddingModel: () => string | null;
}

export function paperHandlers(
  library: PaperLibrary,
  search: SetSearch,
  emit: (event: ApiEvent) => void,
  now: () => number,
  mapping: MapServices,
): PaperHandlers {
  const progress =
    (set: string, importId: string) => (result: IngestResult, done: number, total: number) => {
      emit({ kind: 'papers.importProgress', at: now(), importId, set, done, total, result });
    };
  /** Running imports by id, so papers.cancelImport reaches them. */
  const running = new Map<string, AbortController>();
  const cancelable = async (
    importId: string,
    work: (signal: AbortSignal) => Promise<IngestResult[]>,
  ): Promise<IngestResult[]> => {
    const controller = new AbortController();
    running.set(importId, controller);
    try {
      return await work(controller.signal);
    } finally {
      running.delete(importId);
    }
  };
  const finished = (set: string, results: IngestResult[]) => {
    search.invalidate(set);
    emit({ kind: 'papers.setsChanged', at: now() });
    return { results };
  };
  return {
    'papers.sets': () => ({ sets: library.sets() }),
    'papers.list': ({ set }) => library.papers(set),
    'papers.get': ({ set, id }) => library.paper(set, id),
    'papers.importFiles': async ({ set, importId, files }) => {
      const decoded = files.map((file) => ({
        name: file.name,
        data: new Uint8Array(Buffer.from(file.dataBase64, 'base64')),
      }));
      return finished(
        set,
        await cancelable(importId, (signal) =>
          library.importBytes(set, decoded, progress(set, importId), signal),
        ),
      );
    },
    'papers.importPaths': async ({ set, importId, paths }) =>
      finished(
        set,
        await cancelable(importId, (signal) =>
          library.importPaths(set, paths, progress(set, importId), signal),
        ),
      ),
    'papers.importArxiv': async ({ set, importId, ids }) =>
      finished(
        set,
        await cancelable(importId, (signal) =>
          library.importArxiv(set, ids, progress(set, importId), undefined, signal),
        ),
      ),
    'papers.cancelImport': ({ importId }) => {
      const controller = running.get(importId);
      controller?.abort();
      return { canceled: controller !== undefined };
    },
    'papers.removeSet': ({ set }) => {
      const removed = library.removeSet(set);
      search.invalidate(set);
      emit({ kind: 'papers.setsChanged', at: now() });
      return { removed };
    },
    'papers.reextract': async ({ set, ids, engine }) => {
      const results = await library.reextract(set, ids, engine);
      // The text changed for every set that holds a paper read again: their searches and maps.
      for (const changed of new Set(results.flatMap((result) => result.sets)))
        search.invalidate(changed);
      emit({ kind: 'papers.setsChanged', at: now() });
      return { results };
    },
    'papers.pdf': ({ set, id }) => ({
      dataBase64: Buffer.from(library.pdf(set, id)).toString('base64'),
    }),
    'papers.highlight': ({ set, id, start, end }) => library.highlight(set, id, start, end),
    'papers.search': ({ set, query, limit }) => {
      library.store.requireSet(set);
      return { hits: search.ranked(set, query, limit) };
    },
    'papers.keywordSearch': ({ set, keyword, window }) => {
      library.store.requireSet(set);
      return search.keyword(set, keyword, { window });
    },
    'papers.map': async ({ set, method }) => {
      library.store.requireSet(set);
      const folder = mapping.embeddingModel();
      const map = await mapping.maps.map(set, method, folder);
      return { ...map, embeddingModel: folder === null ? null : basename(folder) };
    },
  };
}
