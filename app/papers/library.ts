// The papers service the host, the CLI and the REPL use: ingestion, listing, a paper's texts,
// highlight boxes, its PDF. Owns the extraction pool (started on first need, disposed with it).
import type { DatabaseSync } from 'node:sqlite';
import type {
  HighlightBox,
  IngestResult,
  PaperDetail,
  PaperSetSummary,
  PaperSummary,
  ReextractResult,
} from '../api/index.ts';
import { arxivInput, type Fetch } from './arxiv.ts';
import { contextText } from './document.ts';
import { PaperHasNoPdfError } from './errors.ts';
import { defaultExtractEngine, type ExtractEngine } from './extract/extraction.ts';
import { ExtractionPool } from './extract/pool.ts';
import { highlightBoxes } from './highlight.ts';
import {
  bytesInput,
  inputsFromPaths,
  PaperIngestor,
  type IngestInput,
  type ProgressListener,
} from './ingest.ts';
import { PaperStore } from './paper-store.ts';

export interface PaperText {
  id: string;
  title: string;
  /** `### PAPER: <title>`, the abstract, then the full text. */
  context: string;
  /** context.slice(contextOffset) === fullText */
  contextOffset: number;
  fullText: string;
}

export class PaperLibrary {
  readonly store: PaperStore;
  readonly #ingestor: PaperIngestor;
  #pool: ExtractionPool | null = null;
  readonly #poolSize: number | undefined;
  /** The engine new papers are read with (PDFium unless a tool asks for pdf.js). */
  readonly engine: ExtractEngine;

  constructor(db: DatabaseSync, options: { poolSize?: number; engine?: ExtractEngine } = {}) {
    this.store = new PaperStore(db);
    this.#poolSize = options.poolSize;
    this.engine = options.engine ?? defaultExtractEngine;
    this.#ingestor = new PaperIngestor(
      this.store,
      () => (this.#pool ??= new ExtractionPool(this.#poolSize, this.engine)),
    );
  }

  async importPaths(
    set: string,
    paths: readonly string[],
    onProgress?: ProgressListener,
    signal?: AbortSignal,
  ): Promise<IngestResult[]> {
    return this.#ingestor.ingest(set, await inputsFromPaths(paths), onProgress, signal);
  }

  /** Ingests inputs listed earlier (inputsFromPaths): a file may vanish in between. */
  importInputs(
    set: string,
    items: readonly (IngestInput | IngestResult)[],
    onProgress?: ProgressListener,
    signal?: AbortSignal,
  ): Promise<IngestResult[]> {
    return this.#ingestor.ingest(set, items, onProgress, signal);
  }

  importBytes(
    set: string,
    files: readonly { name: string; data: Uint8Array }[],
    onProgress?: ProgressListener,
    signal?: AbortSignal,
  ): Promise<IngestResult[]> {
    return this.#ingestor.ingest(
      set,
      files.map((file) => bytesInput(file.name, file.data)),
      onProgress,
      signal,
    );
  }

  importArxiv(
    set: string,
    ids: readonly string[],
    onProgress?: ProgressListener,
    fetcher?: Fetch,
    signal?: AbortSignal,
  ): Promise<IngestResult[]> {
    return this.#ingestor.ingest(
      set,
      ids.map((id) => arxivInput(id, fetcher)),
      onProgress,
      signal,
    );
  }

  sets(): PaperSetSummary[] {
    return this.store.listSets();
  }

  papers(set: string): { set: PaperSetSummary; papers: PaperSummary[]; failures: IngestResult[] } {
    return {
      set: this.store.setSummary(set),
      papers: this.store.listPapers(set),
      failures: this.store.failures(set),
    };
  }

  paper(set: string, id: string): PaperDetail {
    const paper = this.store.getPaper(set, id);
    const context = contextText(paper.title, paper.abstract, paper.fullText);
    return { ...paper, contextText: context.text, contextOffset: context.offset };
  }

  /** What the REPL's `context` is built from: each paper's text as the REPL sees it. */
  texts(set: string): PaperText[] {
    return this.store.texts(set).map((paper) => {
      const context = contextText(paper.title, paper.abstract, paper.fullText);
      return {
        id: paper.id,
        title: paper.title,
        context: context.text,
        contextOffset: context.offset,
        fullText: paper.fullText,
      };
    });
  }

  highlight(
    set: string,
    id: string,
    start: number,
    end: number,
  ): { pages: { width: number; height: number }[]; boxes: HighlightBox[] } {
    const { runs, pageSizes } = this.store.layout(set, id);
    return { pages: pageSizes, boxes: highlightBoxes(runs, start, end) };
  }

  /** Reads papers again from their PDFs (every PDF paper of the set unless `ids` are given). */
  reextract(
    set: string,
    ids?: readonly string[],
    engine: ExtractEngine = this.engine,
  ): Promise<ReextractResult[]> {
    const chosen =
      ids ??
      this.papers(set)
        .papers.filter((p) => p.hasPdf)
        .map((p) => p.id);
    return this.#ingestor.reextract(set, chosen, engine);
  }

  pdf(set: string, id: string): Uint8Array {
    const bytes = this.store.pdf(set, id);
    if (!bytes) throw new PaperHasNoPdfError(id);
    return bytes;
  }

  removeSet(set: string): boolean {
    return this.store.removeSet(set);
  }

  async dispose(): Promise<void> {
    await this.#pool?.dispose();
    this.#pool = null;
  }
}
