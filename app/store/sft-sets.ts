// SFT sets in SQLite (migration 10): the teacher runs of an eval over a dataset's train split that
// cold-start SFT trains on. Every run considered is kept with whether it was accepted and why not
// (the write-up's filter: finished, no REPL error, span F1 above 0; then a cap, as SFT on every
// accepted run collapsed the policy's entropy), so the choice reads back and each run opens.
import { randomUUID } from 'node:crypto';
import type { DatabaseSync } from 'node:sqlite';
import type { SftSet, SftSetSummary } from '../api/index.ts';
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

/** What a new set is made of: its runs in order (the counts follow from them). */
export type NewSftSet = Omit<SftSet, 'id' | 'accepted' | 'considered'>;

interface SetRow {
  id: string;
  name: string;
  dataset: string;
  eval_id: string;
  cap: number;
  created_at: number;
  accepted: number;
  considered: number;
}

const selectSets = `SELECT s.*,
  (SELECT COUNT(*) FROM sft_set_runs r WHERE r.set_id = s.id AND r.accepted = 1) AS accepted,
  (SELECT COUNT(*) FROM sft_set_runs r WHERE r.set_id = s.id) AS considered
  FROM sft_sets s`;

function summaryOf(row: SetRow): SftSetSummary {
  return {
    id: row.id,
    name: row.name,
    dataset: row.dataset,
    evalId: row.eval_id,
    cap: row.cap,
    createdAt: row.created_at,
    accepted: row.accepted,
    considered: row.considered,
  };
}

export class SftSetStore {
  readonly #db: DatabaseSync;

  constructor(db: DatabaseSync) {
    this.#db = db;
  }

  create(set: NewSftSet): SftSet {
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
    return this.#db.prepare(`${selectSets} WHERE s.name = ? OR s.id = ?`).get(name, name) as
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
      ...summaryOf(row),
      runs: runs.map((r) => ({
        runId: r.run_id,
        questionId: r.question_id,
        spanF1: r.span_f1,
        accepted: r.accepted === 1,
        reason: r.reason,
      })),
    };
  }

  /** Newest first; of one dataset (by name) when given. */
  list(dataset?: string): SftSetSummary[] {
    const rows = (dataset === undefined
      ? this.#db.prepare(`${selectSets} ORDER BY s.created_at DESC`).all()
      : this.#db
          .prepare(`${selectSets} WHERE s.dataset = ? ORDER BY s.created_at DESC`)
          .all(dataset)) as unknown as SetRow[];
    return rows.map(summaryOf);
  }

  /** A dataset's sets follow its rename. */
  renameDataset(from: string, to: string): void {
    this.#db.prepare('UPDATE sft_sets SET dataset = ? WHERE dataset = ?').run(to, from);
  }

  delete(name: string): void {
    const row = this.#row(name);
    if (!row) throw new SftSetNotFoundError(name);
    this.#db.prepare('DELETE FROM sft_sets WHERE id = ?').run(row.id);
  }
}
