// Paper sets in the workspace database. Documents are keyed by content hash, so a file already
// parsed (in any set) is never parsed again; papers link sets to documents.
import type { DatabaseSync } from 'node:sqlite';
import type {
  IngestResult,
  PaperEngine,
  PaperSetSummary,
  PaperSummary,
  Section,
} from '../api/index.ts';
import { transaction } from '../store/index.ts';
import { extractorVersion, type PaperDocument } from './document.ts';
import { PaperNotFoundError, PaperSetNotFoundError } from './errors.ts';

export interface PaperSourceRecord {
  kind: 'pdf' | 'qasper';
  fileName?: string;
  qasperId?: string;
}

interface PaperRow {
  id: string;
  source: string;
  added_at: number;
  sha256: string;
  kind: 'pdf' | 'qasper';
  engine: PaperEngine;
  title: string;
  authors: string;
  pages: number;
  words: number;
  sections: number;
  pdf_bytes: number | null;
}

/** A document's engine: its document_engines row, else pdf.js' (PDF) or QASPER's (migration 7). */
const engineColumn = `COALESCE((SELECT e.engine FROM document_engines e WHERE e.sha256 = f.sha256),
  CASE f.kind WHEN 'qasper' THEN 'qasper' ELSE 'pdf.js' END) AS engine`;

/** A paper's summary from the narrow tables only (migration 8): never a documents row. */
const summaryColumns = `p.id, p.source, p.added_at, f.sha256, f.kind, ${engineColumn}, f.title, f.authors,
  f.pages, f.words, f.sections, f.pdf_bytes`;

function toSummary(row: PaperRow): PaperSummary {
  const source = JSON.parse(row.source) as PaperSourceRecord;
  return {
    id: row.id,
    title: row.title,
    authors: JSON.parse(row.authors) as string[],
    pages: row.pages,
    words: row.words,
    sections: row.sections,
    hasPdf: row.pdf_bytes !== null,
    engine: row.engine,
    source:
      source.kind === 'pdf'
        ? {
            kind: 'pdf',
            fileName: source.fileName ?? '',
            sha256: row.sha256,
            bytes: row.pdf_bytes ?? 0,
          }
        : { kind: 'qasper', qasperId: source.qasperId ?? row.id },
    addedAt: row.added_at,
  };
}

export class PaperStore {
  readonly #db: DatabaseSync;
  constructor(db: DatabaseSync) {
    this.#db = db;
  }

  ensureSet(name: string, now = Date.now()): void {
    this.#db
      .prepare(
        'INSERT INTO paper_sets (name, created_at, updated_at) VALUES (?, ?, ?) ON CONFLICT(name) DO NOTHING',
      )
      .run(name, now, now);
  }

  requireSet(name: string): void {
    if (!this.#db.prepare('SELECT 1 FROM paper_sets WHERE name = ?').get(name))
      throw new PaperSetNotFoundError(name);
  }

  /** The paper id already holding this content in the set, if any. */
  paperWithContent(set: string, sha256: string): string | undefined {
    const row = this.#db
      .prepare('SELECT id FROM papers WHERE set_name = ? AND sha256 = ?')
      .get(set, sha256) as { id: string } | undefined;
    return row?.id;
  }

  paperIds(set: string): Set<string> {
    const rows = this.#db.prepare('SELECT id FROM papers WHERE set_name = ?').all(set) as {
      id: string;
    }[];
    return new Set(rows.map((row) => row.id));
  }

  hasDocument(sha256: string): boolean {
    return (
      this.#db
        .prepare('SELECT 1 FROM documents WHERE sha256 = ? AND extractor = ?')
        .get(sha256, extractorVersion) !== undefined
    );
  }

  documentTitle(sha256: string): { title: string; fullText: string } | undefined {
    return this.#db
      .prepare('SELECT title, full_text AS fullText FROM documents WHERE sha256 = ?')
      .get(sha256) as { title: string; fullText: string } | undefined;
  }

  /** Stores the document (if new) and links it into the set, in one transaction. */
  addPaper(
    set: string,
    id: string,
    source: PaperSourceRecord,
    document: PaperDocument | null,
    sha256: string,
    now = Date.now(),
  ): void {
    transaction(this.#db, () => {
      if (document) this.#writeDocument(document, now);
      this.ensureSet(set, now);
      this.#db
        .prepare(
          'INSERT INTO papers (set_name, id, sha256, source, added_at) VALUES (?, ?, ?, ?, ?)',
        )
        .run(set, id, sha256, JSON.stringify(source), now);
      this.#db
        .prepare('DELETE FROM ingest_failures WHERE set_name = ? AND input = ?')
        .run(set, source.fileName ?? source.qasperId ?? id);
      this.#db.prepare('UPDATE paper_sets SET updated_at = ? WHERE name = ?').run(now, set);
    });
  }

  recordFailure(
    set: string,
    input: string,
    error: { name: string; message: string },
    now = Date.now(),
  ): void {
    transaction(this.#db, () => {
      this.ensureSet(set, now);
      this.#db
        .prepare(
          `INSERT INTO ingest_failures (set_name, input, error_name, message, at) VALUES (?, ?, ?, ?, ?)
           ON CONFLICT(set_name, input) DO UPDATE SET error_name = excluded.error_name, message = excluded.message, at = excluded.at`,
        )
        .run(set, input, error.name, error.message, now);
    });
  }

  listSets(): PaperSetSummary[] {
    const rows = this.#db
      .prepare(
        `SELECT s.name, s.created_at AS createdAt, s.updated_at AS updatedAt,
           (SELECT COUNT(*) FROM papers p WHERE p.set_name = s.name) AS papers,
           (SELECT COALESCE(SUM(f.pages), 0) FROM papers p JOIN document_facts f ON f.sha256 = p.sha256 WHERE p.set_name = s.name) AS pages,
           (SELECT COALESCE(SUM(f.words), 0) FROM papers p JOIN document_facts f ON f.sha256 = p.sha256 WHERE p.set_name = s.name) AS words,
           (SELECT COUNT(*) FROM ingest_failures f WHERE f.set_name = s.name) AS failures
         FROM paper_sets s ORDER BY s.name`,
      )
      .all() as unknown as PaperSetSummary[];
    return rows.map((row) => ({ ...row }));
  }

  setSummary(set: string): PaperSetSummary {
    const summary = this.listSets().find((candidate) => candidate.name === set);
    if (!summary) throw new PaperSetNotFoundError(set);
    return summary;
  }

  listPapers(set: string): PaperSummary[] {
    this.requireSet(set);
    const rows = this.#db
      .prepare(
        `SELECT ${summaryColumns} FROM papers p JOIN document_facts f ON f.sha256 = p.sha256 WHERE p.set_name = ? ORDER BY p.added_at, p.id`,
      )
      .all(set) as unknown as PaperRow[];
    return rows.map(toSummary);
  }

  failures(set: string): IngestResult[] {
    const rows = this.#db
      .prepare(
        'SELECT input, error_name AS name, message FROM ingest_failures WHERE set_name = ? ORDER BY at, input',
      )
      .all(set) as { input: string; name: string; message: string }[];
    return rows.map((row) => ({
      input: row.input,
      outcome: 'failed',
      error: { name: row.name, message: row.message },
    }));
  }

  getPaper(
    set: string,
    id: string,
  ): PaperSummary & {
    abstract: string;
    fullText: string;
    sectionList: Section[];
    pageStarts: number[];
  } {
    const row = this.#db
      .prepare(
        `SELECT ${summaryColumns}, d.abstract, d.full_text, d.sections AS section_list, d.page_starts
         FROM papers p JOIN document_facts f ON f.sha256 = p.sha256 JOIN documents d ON d.sha256 = p.sha256
         WHERE p.set_name = ? AND p.id = ?`,
      )
      .get(set, id) as
      | (PaperRow & {
          abstract: string;
          full_text: string;
          section_list: string;
          page_starts: string;
        })
      | undefined;
    if (!row) {
      this.requireSet(set);
      throw new PaperNotFoundError(set, id);
    }
    return {
      ...toSummary(row),
      abstract: row.abstract,
      fullText: row.full_text,
      sectionList: JSON.parse(row.section_list) as Section[],
      pageStarts: JSON.parse(row.page_starts) as number[],
    };
  }

  /** Every paper's title, abstract and full text in a set: what a run's context is built from. */
  texts(set: string): { id: string; title: string; abstract: string; fullText: string }[] {
    this.requireSet(set);
    return this.#db
      .prepare(
        `SELECT p.id, d.title, d.abstract, d.full_text AS fullText FROM papers p JOIN documents d ON d.sha256 = p.sha256
         WHERE p.set_name = ? ORDER BY p.added_at, p.id`,
      )
      .all(set) as { id: string; title: string; abstract: string; fullText: string }[];
  }

  layout(
    set: string,
    id: string,
  ): { runs: Float64Array; pageSizes: { width: number; height: number }[] } {
    const row = this.#db
      .prepare(
        'SELECT d.runs, d.page_sizes FROM papers p JOIN documents d ON d.sha256 = p.sha256 WHERE p.set_name = ? AND p.id = ?',
      )
      .get(set, id) as { runs: Uint8Array | null; page_sizes: string } | undefined;
    if (!row) throw new PaperNotFoundError(set, id);
    const bytes = row.runs ?? new Uint8Array();
    const runs = new Float64Array(bytes.slice().buffer, 0, bytes.byteLength / 8);
    return { runs, pageSizes: JSON.parse(row.page_sizes) as { width: number; height: number }[] };
  }

  /** The sets that hold a document (its text changed for all of them when it is read again). */
  setsWithContent(sha256: string): string[] {
    const rows = this.#db
      .prepare('SELECT DISTINCT set_name AS name FROM papers WHERE sha256 = ?')
      .all(sha256) as { name: string }[];
    return rows.map((row) => row.name);
  }

  /** A paper's stored PDF with its content hash (null bytes for a QASPER paper). */
  pdfWithHash(set: string, id: string): { sha256: string; pdf: Uint8Array | null } {
    const row = this.#db
      .prepare(
        'SELECT d.sha256, d.pdf FROM papers p JOIN documents d ON d.sha256 = p.sha256 WHERE p.set_name = ? AND p.id = ?',
      )
      .get(set, id) as { sha256: string; pdf: Uint8Array | null } | undefined;
    if (!row) {
      this.requireSet(set);
      throw new PaperNotFoundError(set, id);
    }
    return row;
  }

  /** A document read again (same bytes, a new reading): every set that holds it sees it. */
  replaceDocument(document: PaperDocument): void {
    transaction(this.#db, () => {
      this.#writeDocument(document, Date.now());
    });
  }

  /** Inserts a document, or replaces its reading (never its PDF or its date), with its engine. */
  #writeDocument(document: PaperDocument, now: number): void {
    this.#db
      .prepare(
        `INSERT INTO documents (sha256, kind, extractor, title, authors, abstract, full_text, sections,
           page_starts, page_sizes, runs, pages, words, pdf, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT(sha256) DO UPDATE SET extractor = excluded.extractor, title = excluded.title,
           authors = excluded.authors, abstract = excluded.abstract, full_text = excluded.full_text,
           sections = excluded.sections, page_starts = excluded.page_starts, page_sizes = excluded.page_sizes,
           runs = excluded.runs, pages = excluded.pages, words = excluded.words`,
      )
      .run(
        document.sha256,
        document.kind,
        extractorVersion,
        document.title,
        JSON.stringify(document.authors),
        document.abstract,
        document.fullText,
        JSON.stringify(document.sections),
        JSON.stringify(document.pageStarts),
        JSON.stringify(document.pageSizes),
        Buffer.from(document.runs.buffer, document.runs.byteOffset, document.runs.byteLength),
        document.pages,
        document.words,
        document.pdf,
        now,
      );
    this.#setEngine(document);
    this.#db
      .prepare(
        `INSERT INTO document_facts (sha256, kind, title, authors, pages, words, sections, pdf_bytes)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT(sha256) DO UPDATE SET title = excluded.title, authors = excluded.authors,
           pages = excluded.pages, words = excluded.words, sections = excluded.sections`,
      )
      .run(
        document.sha256,
        document.kind,
        document.title,
        JSON.stringify(document.authors),
        document.pages,
        document.words,
        document.sections.length,
        document.pdf?.byteLength ?? null,
      );
  }

  #setEngine(document: PaperDocument): void {
    this.#db
      .prepare(
        `INSERT INTO document_engines (sha256, engine) VALUES (?, ?)
         ON CONFLICT(sha256) DO UPDATE SET engine = excluded.engine`,
      )
      .run(document.sha256, document.engine);
  }

  pdf(set: string, id: string): Uint8Array | null {
    const row = this.#db
      .prepare(
        'SELECT d.pdf FROM papers p JOIN documents d ON d.sha256 = p.sha256 WHERE p.set_name = ? AND p.id = ?',
      )
      .get(set, id) as { pdf: Uint8Array | null } | undefined;
    if (!row) throw new PaperNotFoundError(set, id);
    return row.pdf;
  }

  removeSet(set: string): boolean {
    return transaction(this.#db, () => {
      const removed =
        this.#db.prepare('DELETE FROM paper_sets WHERE name = ?').run(set).changes > 0;
      this.#db
        .prepare('DELETE FROM documents WHERE sha256 NOT IN (SELECT sha256 FROM papers)')
        .run();
      return removed;
    });
  }
}
