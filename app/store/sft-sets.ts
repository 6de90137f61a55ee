// SFT sets in SQLite (migration 10): the teacher runs of an eval over a dataset's train split that
// cold-start SFT trains on. Every run considered is kept with whether it was accepted and why not
// (the write-up's filter: finished, no REPL error, span F1 above 0; then a cap, as SFT on every
// accepted run collapsed the policy's entropy), so the choice reads back and each run opens.
import { randomUUID } from 'node:crypto';
import type { DatabaseSync } from 'node:sqlite';
import { transaction } from './database.ts';

export class SftSetNotFoundError extends Error {
  override readonly name = 'SftSetNotFoundError';
  constructor(name: string) {
    super(
      `There is no SFT set '${name}' in this workspace; make one with \`rlm-studio dataset sft-set\``,
    );
  }
}

export class SftSetNameTakenError extends Error {
  override readonly name = 'SftSetNameTakenError';
  constructor(name: string) {
    super(`An SFT set named '${name}' exists already; pick another name or delete that one`);
  }
}

export interface SftSetRun {
  runId: string | null;
  questionId: string;
  spanF1: number | null;
  accepted: boolean;
  /** Why it was left out (null when accepted). */
  reason: string | null;
}

export interface SftSet {
  id: string;
  name: string;
  /** The dataset whose questions the teacher answered. */
  dataset: string;
  evalId: string;
  cap: number;
  createdAt: number;
  runs: SftSetRun[];
}

interface SetRow {
  id: string;
  name: string;
  dataset: string;
  eval_id: string;
  cap: number;
  created_at: number;
}

export class SftSetStore {
  readonly #db: DatabaseSync;

  constructor(db: DatabaseSync) {
    this.#db = db;
  }

  create(set: Omit<SftSet, 'id'>): SftSet {
    const id = randomUUID();
    transaction(this.#db, () => {
      if (this.#row(set.name)) throw new SftSetNameTakenError(set.name);
      this.#db
        .prepare(
          'INSERT INTO sft_sets (id, name, dataset, eval_id, cap, created_at) VALUES (?, ?, ?, ?, ?, ?)',
        )
        .run(id, set.name, set.dataset, set.evalId, set.cap, set.createdAt);
      const insert = this.#db.prepare(
        `INSERT INTO sft_set_runs (set_id, seq, run_id, question_id, span_f1, accepted, reason)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
      );
      set.runs.forEach((run, seq) => {
        insert.run(
          id,
          seq,
          run.runId,
          run.questionId,
          run.spanF1,
          run.accepted ? 1 : 0,
          run.reason,
        );
      });
    });
    return this.get(set.name);
  }

  #row(name: string): SetRow | undefined {
    return this.#db.prepare('SELECT * FROM sft_sets WHERE name = ? OR id = ?').get(name, name) as
      SetRow | undefined;
  }

  get(name: string): SftSet {
    const row = this.#row(name);
    if (!row) throw new SftSetNotFoundError(name);
    const runs = this.#db
      .prepare('SELECT * FROM sft_set_runs WHERE set_id = ? ORDER BY seq')
      .all(row.id) as {
      run_id: string | null;
      question_id: string;
      span_f1: number | null;
      accepted: number;
      reason: string | null;
    }[];
    return {
      id: row.id,
      name: row.name,
      dataset: row.dataset,
      evalId: row.eval_id,
      cap: row.cap,
      createdAt: row.created_at,
      runs: runs.map((r) => ({
        runId: r.run_id,
        questionId: r.question_id,
        spanF1: r.span_f1,
        accepted: r.accepted === 1,
        reason: r.reason,
      })),
    };
  }

  list(): Omit<SftSet, 'runs'>[] {
    const rows = this.#db
      .prepare('SELECT * FROM sft_sets ORDER BY created_at DESC')
      .all() as unknown as SetRow[];
    return rows.map((row) => ({
      id: row.id,
      name: row.name,
      dataset: row.dataset,
      evalId: row.eval_id,
      cap: row.cap,
      createdAt: row.created_at,
    }));
  }

  delete(name: string): void {
    const row = this.#row(name);
    if (!row) throw new SftSetNotFoundError(name);
    this.#db.prepare('DELETE FROM sft_sets WHERE id = ?').run(row.id);
  }
}
