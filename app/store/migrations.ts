// Schema migrations. Each runs once, in its own transaction, and is recorded in schema_migrations;
// a database written by a newer version of the app is refused rather than damaged.
import type { DatabaseSync } from 'node:sqlite';
import { transaction } from './database.ts';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const migrations: readonly Migration[] = [
  {
    version: 1,
    name: 'settings',
    sql: `CREATE TABLE settings (
            key TEXT PRIMARY KEY,
            value TEXT NOT NULL,
            updated_at INTEGER NOT NULL
          ) STRICT;`,
  },
  {
    version: 2,
    name: 'paper sets',
    sql: `CREATE TABLE documents (
            sha256 TEXT PRIMARY KEY,
            kind TEXT NOT NULL CHECK (kind IN ('pdf', 'qasper')),
            extractor INTEGER NOT NULL,
            title TEXT NOT NULL,
            authors TEXT NOT NULL,
            abstract TEXT NOT NULL,
            full_text TEXT NOT NULL,
            sections TEXT NOT NULL,
            page_starts TEXT NOT NULL,
            page_sizes TEXT NOT NULL,
            runs BLOB,
            pages INTEGER NOT NULL,
            words INTEGER NOT NULL,
            pdf BLOB,
            created_at INTEGER NOT NULL
          ) STRICT;
          CREATE TABLE paper_sets (
            name TEXT PRIMARY KEY,
            created_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL
          ) STRICT;
          CREATE TABLE papers (
            set_name TEXT NOT NULL REFERENCES paper_sets(name) ON DELETE CASCADE,
            id TEXT NOT NULL,
            sha256 TEXT NOT NULL REFERENCES documents(sha256),
            source TEXT NOT NULL,
            added_at INTEGER NOT NULL,
            PRIMARY KEY (set_name, id),
            UNIQUE (set_name, sha256)
          ) STRICT;
          CREATE TABLE ingest_failures (
            set_name TEXT NOT NULL REFERENCES paper_sets(name) ON DELETE CASCADE,
            input TEXT NOT NULL,
            error_name TEXT NOT NULL,
            message TEXT NOT NULL,
            at INTEGER NOT NULL,
            PRIMARY KEY (set_name, input)
          ) STRICT;`,
  },
  {
    version: 3,
    name: 'runs',
    sql: `CREATE TABLE runs (
            id TEXT PRIMARY KEY,
            created_at INTEGER NOT NULL,
            finished_at INTEGER,
            status TEXT NOT NULL CHECK (status IN ('running', 'done', 'failed', 'canceled', 'interrupted')),
            question TEXT NOT NULL,
            set_name TEXT NOT NULL,
            model TEXT NOT NULL,
            answer TEXT,
            agents INTEGER NOT NULL DEFAULT 0,
            turns INTEGER NOT NULL DEFAULT 0,
            input_tokens INTEGER NOT NULL DEFAULT 0,
            output_tokens INTEGER NOT NULL DEFAULT 0,
            cost_usd REAL,
            error TEXT,
            parent_run_id TEXT,
            owner_pid INTEGER
          ) STRICT;
          CREATE TABLE run_events (
            run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
            seq INTEGER NOT NULL,
            at INTEGER NOT NULL,
            kind TEXT NOT NULL,
            agent_id TEXT,
            data TEXT NOT NULL,
            PRIMARY KEY (run_id, seq)
          ) STRICT;
          CREATE INDEX runs_created ON runs(created_at);`,
  },
  {
    version: 4,
    name: 'evaluations',
    sql: `CREATE TABLE evals (
            id TEXT PRIMARY KEY,
            created_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL,
            status TEXT NOT NULL CHECK (status IN ('running', 'done', 'failed', 'canceled', 'interrupted')),
            dataset_path TEXT NOT NULL,
            dataset_name TEXT NOT NULL,
            format TEXT NOT NULL,
            options TEXT NOT NULL,
            model TEXT NOT NULL,
            judge TEXT,
            total INTEGER NOT NULL,
            error TEXT,
            owner_pid INTEGER
          ) STRICT;
          CREATE TABLE eval_results (
            eval_id TEXT NOT NULL REFERENCES evals(id) ON DELETE CASCADE,
            question_id TEXT NOT NULL,
            seq INTEGER NOT NULL,
            run_id TEXT,
            status TEXT NOT NULL CHECK (status IN ('done', 'failed')),
            question TEXT NOT NULL,
            set_name TEXT NOT NULL,
            paper_ids TEXT NOT NULL,
            answer TEXT,
            spans TEXT NOT NULL,
            gold TEXT NOT NULL,
            span_precision REAL,
            span_recall REAL,
            span_f1 REAL,
            evidence_f1 REAL,
            rubric REAL,
            judge TEXT,
            latency_ms REAL NOT NULL,
            input_tokens INTEGER NOT NULL,
            output_tokens INTEGER NOT NULL,
            cost_usd REAL,
            error TEXT,
            finished_at INTEGER NOT NULL,
            PRIMARY KEY (eval_id, question_id)
          ) STRICT;
          CREATE INDEX evals_created ON evals(created_at);`,
  },
  {
    version: 5,
    name: 'run scores, sources and forks',
    sql: `ALTER TABLE runs ADD COLUMN score REAL;
          ALTER TABLE runs ADD COLUMN source TEXT NOT NULL DEFAULT 'live';
          CREATE INDEX runs_parent ON runs(parent_run_id);`,
  },
  {
    version: 6,
    name: 'run prompt texts',
    // Each text of a run's prompts once; turn.started events refer to them (app/store/run-texts.ts).
    sql: `CREATE TABLE run_texts (
            run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
            id INTEGER NOT NULL,
            text TEXT NOT NULL,
            PRIMARY KEY (run_id, id)
          ) STRICT;`,
  },
  {
    version: 7,
    name: 'extraction engine',
    // Which engine read each document. A table of its own, not a column: a column added to
    // documents would sit after the PDF blob in each row, and listing a set would read every PDF.
    // Documents without a row were read by pdf.js (PDF) or are QASPER's text.
    sql: `CREATE TABLE document_engines (
            sha256 TEXT PRIMARY KEY REFERENCES documents(sha256) ON DELETE CASCADE,
            engine TEXT NOT NULL CHECK (engine IN ('pdfium', 'pdf.js', 'qasper'))
          ) STRICT;`,
  },
  {
    version: 8,
    name: 'document facts',
    // What listing a set shows of each document, in a narrow table: in documents these columns sit
    // after the full text and the word boxes (PDFium's are ~0.5 MB a paper), so listing 1,000
    // papers walked every row's overflow pages (0.9 s; from this table ~10 ms).
    sql: `CREATE TABLE document_facts (
            sha256 TEXT PRIMARY KEY REFERENCES documents(sha256) ON DELETE CASCADE,
            kind TEXT NOT NULL CHECK (kind IN ('pdf', 'qasper')),
            title TEXT NOT NULL,
            authors TEXT NOT NULL,
            pages INTEGER NOT NULL,
            words INTEGER NOT NULL,
            sections INTEGER NOT NULL,
            pdf_bytes INTEGER
          ) STRICT;
          INSERT INTO document_facts (sha256, kind, title, authors, pages, words, sections, pdf_bytes)
            SELECT sha256, kind, title, authors, pages, words, json_array_length(sections), LENGTH(pdf)
            FROM documents;`,
  },
  {
    version: 9,
    name: 'datasets',
    // Evidence datasets made in the app (datasets.ts). A generation group's outcome and its
    // questions are written in one transaction, so a stopped generation resumes at a group edge;
    // every attempt at a group is kept (a failed one's reply too).
    sql: `CREATE TABLE datasets (
            id TEXT PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,
            created_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL,
            generation TEXT,
            groups_planned INTEGER NOT NULL DEFAULT 0
          ) STRICT;
          CREATE TABLE dataset_questions (
            dataset_id TEXT NOT NULL REFERENCES datasets(id) ON DELETE CASCADE,
            id TEXT NOT NULL,
            seq INTEGER NOT NULL,
            question TEXT NOT NULL,
            set_name TEXT NOT NULL,
            paper_ids TEXT NOT NULL,
            gold TEXT NOT NULL,
            split TEXT NOT NULL CHECK (split IN ('train', 'validation')),
            group_id TEXT,
            status TEXT NOT NULL CHECK (status IN ('pending', 'approved', 'rejected')),
            provenance TEXT NOT NULL,
            edited_at INTEGER,
            PRIMARY KEY (dataset_id, id)
          ) STRICT;
          CREATE TABLE dataset_groups (
            dataset_id TEXT NOT NULL REFERENCES datasets(id) ON DELETE CASCADE,
            seq INTEGER NOT NULL,
            group_id TEXT NOT NULL,
            outcome TEXT NOT NULL,
            PRIMARY KEY (dataset_id, seq)
          ) STRICT;`,
  },
  {
    version: 10,
    name: 'sft sets',
    // Teacher runs chosen for cold-start SFT (sft-sets.ts): every run considered, accepted or not,
    // with the reason, so the choice can be read back and opened in the debugger.
    sql: `CREATE TABLE sft_sets (
            id TEXT PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,
            dataset TEXT NOT NULL,
            eval_id TEXT NOT NULL,
            cap INTEGER NOT NULL,
            created_at INTEGER NOT NULL
          ) STRICT;
          CREATE TABLE sft_set_runs (
            set_id TEXT NOT NULL REFERENCES sft_sets(id) ON DELETE CASCADE,
            seq INTEGER NOT NULL,
            run_id TEXT,
            question_id TEXT NOT NULL,
            span_f1 REAL,
            accepted INTEGER NOT NULL,
            reason TEXT,
            PRIMARY KEY (set_id, seq)
          ) STRICT;`,
  },
];

export class WorkspaceTooNewError extends Error {
  override readonly name = 'WorkspaceTooNewError';
  constructor(found: number, known: number) {
    super(
      `This workspace was written by a newer RLM Studio (schema ${found}; this one knows up to ${known}). ` +
        'Update RLM Studio, or open another workspace with --workspace DIR',
    );
  }
}

export function schemaVersion(db: DatabaseSync): number {
  const row = db.prepare('SELECT MAX(version) AS version FROM schema_migrations').get() as
    { version: number | null } | undefined;
  return row?.version ?? 0;
}

/** Brings the database up to the newest schema; returns the versions it applied. */
export function migrate(db: DatabaseSync, all: readonly Migration[] = migrations): number[] {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
             version INTEGER PRIMARY KEY,
             name TEXT NOT NULL,
             applied_at INTEGER NOT NULL
           ) STRICT`);
  const known = all.at(-1)?.version ?? 0;
  const current = schemaVersion(db);
  if (current > known) throw new WorkspaceTooNewError(current, known);
  // Versions are assigned per issue and may land out of order: apply every one not yet recorded.
  const done = new Set(
    (db.prepare('SELECT version FROM schema_migrations').all() as { version: number }[]).map(
      (row) => row.version,
    ),
  );
  const applied: number[] = [];
  for (const migration of all) {
    if (done.has(migration.version)) continue;
    transaction(db, () => {
      db.exec(migration.sql);
      db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(
        migration.version,
        migration.name,
        Date.now(),
      );
    });
    applied.push(migration.version);
  }
  return applied;
}
