// Ingestion: inputs (files, folders, uploads, QASPER JSON) -> papers in a set. Each input succeeds
// or fails on its own with a named error; a parsed document is written with its link in one
// transaction, so an interrupted import leaves nothing half-written. Extraction runs in the pool,
// biggest files first, so every core stays busy.
import { createHash } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, extname, join } from 'node:path';
import type { IngestResult, ReextractResult } from '../api/index.ts';
import { packRuns, type PaperDocument } from './document.ts';
import {
  FileUnreadableError,
  FileVanishedError,
  ImportCanceledError,
  PaperHasNoPdfError,
} from './errors.ts';

import type { ExtractionPool } from './extract/pool.ts';
import type { ExtractEngine, PdfExtraction } from './extract/extraction.ts';
import { derivePaperId, uniqueId } from './paper-id.ts';
import type { PaperStore } from './paper-store.ts';
import { parseQasper } from './qasper.ts';

const canceledName = 'ImportCanceledError';
/** Files read ahead of the extraction workers (a few per worker keeps them busy). */
const maxFilesInFlight = 8;

export interface IngestInput {
  /** What the user calls it: a file name or path. */
  name: string;
  /** Its size in bytes where known before reading (orders the work: biggest first). */
  size?: number;
  read(): Promise<Uint8Array>;
}

export type ProgressListener = (result: IngestResult, done: number, total: number) => void;

function failure(input: string, error: unknown): IngestResult {
  const name = error instanceof Error ? error.name : 'Error';
  const message = error instanceof Error ? error.message : String(error);
  return { input, outcome: 'failed', error: { name, message } };
}

/** Files and folders -> inputs (folders: their PDFs and JSON files, recursively, in name order). */
export async function inputsFromPaths(
  paths: readonly string[],
): Promise<(IngestInput | IngestResult)[]> {
  const inputs: (IngestInput | IngestResult)[] = [];
  for (const path of paths) {
    let info;
    try {
      info = await stat(path);
    } catch (error) {
      inputs.push(
        failure(
          path,
          new FileUnreadableError(
            path,
            (error as NodeJS.ErrnoException).code === 'ENOENT'
              ? 'no such file or folder'
              : String(error),
          ),
        ),
      );
      continue;
    }
    if (info.isDirectory()) {
      const entries = (await readdir(path, { recursive: true })).sort();
      for (const entry of entries) {
        if (!/\.(pdf|json)$/i.test(entry)) continue;
        const file = join(path, entry);
        const size = await stat(file).then(
          (found) => found.size,
          () => undefined, // gone already: reading it will say so
        );
        inputs.push(fileInput(file, size));
      }
    } else {
      inputs.push(fileInput(path, info.size));
    }
  }
  return inputs;
}

export function fileInput(path: string, size?: number): IngestInput {
  return {
    name: path,
    ...(size === undefined ? {} : { size }),
    read: async () => {
      try {
        return new Uint8Array(await readFile(path));
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ENOENT') throw new FileVanishedError(path);
        throw new FileUnreadableError(path, code ?? String(error));
      }
    },
  };
}

export function bytesInput(name: string, data: Uint8Array): IngestInput {
  return { name, size: data.length, read: () => Promise.resolve(data) };
}

function pdfDocument(sha256: string, data: Uint8Array, extraction: PdfExtraction): PaperDocument {
  return {
    sha256,
    kind: 'pdf',
    engine: extraction.engine,
    title: extraction.title,
    authors: extraction.authors,
    abstract: extraction.abstract,
    fullText: extraction.fullText,
    sections: extraction.sections,
    pageStarts: extraction.pageStarts,
    pageSizes: extraction.pageSizes,
    runs: packRuns(extraction.runs),
    pages: extraction.pages,
    words: extraction.words,
    pdf: data,
  };
}

export class PaperIngestor {
  readonly #store: PaperStore;
  readonly #pool: () => ExtractionPool;

  /** `pool` is called only when something needs parsing (a cached set never starts workers). */
  constructor(store: PaperStore, pool: () => ExtractionPool) {
    this.#store = store;
    this.#pool = pool;
  }

  /**
   * `signal`: once aborted, inputs not yet read end as ImportCanceledError (not recorded as the
   * set's failures); papers already added stay, each written whole.
   */
  async ingest(
    set: string,
    items: readonly (IngestInput | IngestResult)[],
    onProgress?: ProgressListener,
    signal?: AbortSignal,
  ): Promise<IngestResult[]> {
    this.#store.ensureSet(set);
    const results: (IngestResult[] | undefined)[] = new Array<IngestResult[] | undefined>(
      items.length,
    );
    let done = 0;
    const total = items.length;
    const report = (index: number, outcome: IngestResult[]) => {
      results[index] = outcome;
      done++;
      for (const result of outcome) {
        if (result.outcome === 'failed' && result.error && result.error.name !== canceledName)
          this.#store.recordFailure(set, result.input, result.error);
        onProgress?.(result, done, total);
      }
    };
    const claimed = new Set<string>();
    const pending: { index: number; input: IngestInput }[] = [];
    for (const [index, item] of items.entries()) {
      if ('read' in item) pending.push({ index, input: item });
      else report(index, [item]);
    }
    // Biggest files first, so the last paper to finish is a short one and every core stays busy
    // to the end. Each file is handed on as soon as it is read: the workers start on the first
    // while the rest are still being read.
    pending.sort((a, b) => (b.input.size ?? 0) - (a.input.size ?? 0));
    const work: Promise<void>[] = [];
    // At most this many files read and not yet stored: a 1,000-paper import holds a few PDFs in
    // memory, not all of them, and a cancel stops it within them.
    const inFlight = new Set<Promise<void>>();
    for (const { index, input } of pending) {
      while (inFlight.size >= maxFilesInFlight) await Promise.race(inFlight);
      if (signal?.aborted) {
        report(index, [failure(input.name, new ImportCanceledError(input.name))]);
        continue;
      }
      let data: Uint8Array;
      try {
        data = await input.read();
      } catch (error) {
        report(index, [failure(input.name, error)]);
        continue;
      }
      const task = (async () => {
        const outcome =
          extname(input.name).toLowerCase() === '.json'
            ? this.#ingestQasper(set, input.name, data, claimed)
            : [await this.#ingestPdf(set, input.name, data, claimed)];
        report(index, outcome);
      })();
      // Awaited below with the others; marked handled now, since it may fail while later files
      // are still being read (a closed workspace), before anything awaits it.
      task.catch(() => undefined);
      work.push(task);
      const settled = task.then(
        () => undefined,
        () => undefined,
      );
      inFlight.add(settled);
      void settled.then(() => inFlight.delete(settled));
    }
    await Promise.all(work);
    return results.flatMap((outcome) => outcome ?? []);
  }

  async #ingestPdf(
    set: string,
    name: string,
    data: Uint8Array,
    claimed: Set<string>,
  ): Promise<IngestResult> {
    const sha256 = createHash('sha256').update(data).digest('hex');
    const existing = this.#store.paperWithContent(set, sha256);
    if (existing !== undefined || claimed.has(sha256)) {
      return { input: name, outcome: 'duplicate', ...(existing ? { paperId: existing } : {}) };
    }
    claimed.add(sha256);
    try {
      let document: PaperDocument | null = null;
      let title: string;
      let fullText: string;
      const cached = this.#store.hasDocument(sha256)
        ? this.#store.documentTitle(sha256)
        : undefined;
      if (cached) {
        ({ title, fullText } = cached);
      } else {
        const extraction = await this.#pool().extract(basename(name), data);
        document = pdfDocument(sha256, data, extraction);
        ({ title, fullText } = extraction);
      }
      const id = uniqueId(
        derivePaperId(basename(name), title, fullText),
        this.#store.paperIds(set),
      );
      this.#store.addPaper(set, id, { kind: 'pdf', fileName: basename(name) }, document, sha256);
      return { input: name, outcome: 'added', paperId: id };
    } catch (error) {
      claimed.delete(sha256);
      return failure(name, error);
    }
  }

  /**
   * Reads papers of a set again from their stored PDFs with `engine` (asked for: a paper is never
   * read again by itself). Each paper fails on its own; a document shared with other sets changes
   * for them too. Character offsets marked on the old text may move.
   */
  async reextract(
    set: string,
    ids: readonly string[],
    engine: ExtractEngine,
    onProgress?: (result: ReextractResult, done: number, total: number) => void,
  ): Promise<ReextractResult[]> {
    let done = 0;
    // As for an import: a few PDFs out of the store at a time, not the whole set's.
    const inFlight = new Set<Promise<unknown>>();
    const work: Promise<ReextractResult>[] = [];
    for (const paperId of ids) {
      while (inFlight.size >= maxFilesInFlight) await Promise.race(inFlight);
      const task = this.#reextractOne(set, paperId, engine).then((result) => {
        onProgress?.(result, ++done, ids.length);
        return result;
      });
      work.push(task);
      inFlight.add(task);
      void task.then(() => inFlight.delete(task));
    }
    return Promise.all(work);
  }

  async #reextractOne(
    set: string,
    paperId: string,
    engine: ExtractEngine,
  ): Promise<ReextractResult> {
    try {
      const { sha256, pdf } = this.#store.pdfWithHash(set, paperId);
      if (!pdf) throw new PaperHasNoPdfError(paperId);
      const extraction = await this.#pool().extract(paperId, pdf, engine);
      this.#store.replaceDocument(pdfDocument(sha256, pdf, extraction));
      return { paperId, outcome: 'reextracted', engine, sets: this.#store.setsWithContent(sha256) };
    } catch (error) {
      const { error: named } = failure(paperId, error);
      return { paperId, outcome: 'failed', engine, sets: [], ...(named ? { error: named } : {}) };
    }
  }

  #ingestQasper(set: string, name: string, data: Uint8Array, claimed: Set<string>): IngestResult[] {
    let entries;
    try {
      entries = parseQasper(basename(name), Buffer.from(data).toString('utf8'));
    } catch (error) {
      return [failure(name, error)];
    }
    return entries.map((entry): IngestResult => {
      if (!entry.document) return failure(entry.id, entry.error);
      const { document } = entry;
      const existing = this.#store.paperWithContent(set, document.sha256);
      if (existing !== undefined || claimed.has(document.sha256)) {
        return {
          input: entry.id,
          outcome: 'duplicate',
          ...(existing ? { paperId: existing } : {}),
        };
      }
      claimed.add(document.sha256);
      const id = uniqueId(entry.id, this.#store.paperIds(set));
      this.#store.addPaper(
        set,
        id,
        { kind: 'qasper', qasperId: entry.id },
        document,
        document.sha256,
      );
      return { input: entry.id, outcome: 'added', paperId: id };
    });
  }
}
