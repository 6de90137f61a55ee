// Evidence datasets in SQLite (migration 9): a dataset, its questions (gold spans with character
// ranges, split, group, approval, provenance) and, for a generated one, each finished group's
// outcome (every attempt). A group's outcome and its questions commit together: a killed
// generation keeps every finished group, and resuming asks the teacher only for the groups
// without a finished outcome.
import { randomUUID } from 'node:crypto';
import type { DatabaseSync } from 'node:sqlite';
import type {
  DatasetQuestion,
  DatasetSummary,
  GenerationOptions,
  GroupOutcome,
  QuestionStatus,
} from '../api/index.ts';
import { transaction } from './database.ts';

export class DatasetNotFoundError extends Error {
  override readonly name = 'DatasetNotFoundError';
  constructor(nameOrId: string) {
    super(
      `There is no dataset '${nameOrId}' in this workspace; list them with \`rlm-studio dataset list\``,
    );
  }
}

export class DatasetNameTakenError extends Error {
  override readonly name = 'DatasetNameTakenError';
  constructor(name: string) {
    super(`A dataset named '${name}' exists already; pick another name or delete that one`);
  }
}

export class QuestionNotFoundError extends Error {
  override readonly name = 'QuestionNotFoundError';
  constructor(dataset: string, id: string) {
    super(`Dataset '${dataset}' has no question '${id}'`);
  }
}

interface DatasetRow {
  id: string;
  name: string;
  created_at: number;
  updated_at: number;
  generation: string | null;
  groups_planned: number;
}

interface QuestionRow {
  id: string;
  question: string;
  set_name: string;
  paper_ids: string;
  gold: string;
  split: 'train' | 'validation';
  group_id: string | null;
  status: QuestionStatus;
  provenance: string;
  edited_at: number | null;
}

export interface QuestionFilter {
  split?: 'train' | 'validation' | undefined;
  group?: string | undefined;
  status?: QuestionStatus | undefined;
  source?: 'teacher' | 'imported' | 'hand' | undefined;
  /** Case-insensitive substring of the question. */
  text?: string | undefined;
}

/** What a person may change of a question; the rest is where it came from. */
export interface QuestionEdit {
  question?: string | undefined;
  gold?: DatasetQuestion['gold'] | undefined;
  status?: QuestionStatus | undefined;
  split?: 'train' | 'validation' | undefined;
}

export class DatasetStore {
  readonly #db: DatabaseSync;

  constructor(db: DatabaseSync) {
    this.#db = db;
  }

  create(name: string, now: number, generation: GenerationOptions | null = null): DatasetSummary {
    const trimmed = name.trim();
    if (this.#find(trimmed)) throw new DatasetNameTakenError(trimmed);
    const id = randomUUID();
    this.#db
      .prepare(
        'INSERT INTO datasets (id, name, created_at, updated_at, generation) VALUES (?, ?, ?, ?, ?)',
      )
      .run(id, trimmed, now, now, generation ? JSON.stringify(generation) : null);
    return this.get(id);
  }

  #find(nameOrId: string): DatasetRow | undefined {
    return this.#db
      .prepare('SELECT * FROM datasets WHERE id = ? OR name = ? ORDER BY id = ? DESC LIMIT 1')
      .get(nameOrId, nameOrId, nameOrId) as DatasetRow | undefined;
  }

  #row(nameOrId: string): DatasetRow {
    const row = this.#find(nameOrId);
    if (!row) throw new DatasetNotFoundError(nameOrId);
    return row;
  }

  /** A dataset by id or name. */
  get(nameOrId: string): DatasetSummary {
    return this.#summary(this.#row(nameOrId));
  }

  has(nameOrId: string): boolean {
    return this.#find(nameOrId) !== undefined;
  }

  list(): DatasetSummary[] {
    const rows = this.#db
      .prepare('SELECT * FROM datasets ORDER BY updated_at DESC, name')
      .all() as unknown as DatasetRow[];
    return rows.map((row) => this.#summary(row));
  }

  #summary(row: DatasetRow): DatasetSummary {
    const counts = this.#db
      .prepare(
        `SELECT COUNT(*) AS questions,
                SUM(split = 'train') AS train, SUM(split = 'validation') AS validation,
                SUM(status = 'approved') AS approved, SUM(status = 'rejected') AS rejected
         FROM dataset_questions WHERE dataset_id = ?`,
      )
      .get(row.id) as Record<string, number | null>;
    const outcomes = this.groupOutcomes(row.id);
    const costs = outcomes.map((o) => o.costUsd);
    return {
      id: row.id,
      name: row.name,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
      generation:
        row.generation === null ? null : (JSON.parse(row.generation) as GenerationOptions),
      questions: counts.questions ?? 0,
      train: counts.train ?? 0,
      validation: counts.validation ?? 0,
      approved: counts.approved ?? 0,
      rejected: counts.rejected ?? 0,
      groupsDone: new Set(outcomes.filter((o) => o.status === 'done').map((o) => o.group)).size,
      groupsPlanned: row.groups_planned,
      costUsd:
        costs.length === 0 || costs.some((c) => c === null)
          ? null
          : costs.reduce((a: number, c) => a + (c ?? 0), 0),
    };
  }

  rename(nameOrId: string, name: string, now: number): DatasetSummary {
    const row = this.#row(nameOrId);
    const trimmed = name.trim();
    const other = this.#find(trimmed);
    if (other && other.id !== row.id) throw new DatasetNameTakenError(trimmed);
    this.#db
      .prepare('UPDATE datasets SET name = ?, updated_at = ? WHERE id = ?')
      .run(trimmed, now, row.id);
    return this.get(row.id);
  }

  delete(nameOrId: string): void {
    const row = this.#row(nameOrId);
    this.#db.prepare('DELETE FROM datasets WHERE id = ?').run(row.id);
  }

  setPlannedGroups(nameOrId: string, groups: number): void {
    const row = this.#row(nameOrId);
    this.#db.prepare('UPDATE datasets SET groups_planned = ? WHERE id = ?').run(groups, row.id);
  }

  /** Adds questions (ids must be new in the dataset) in one transaction. */
  addQuestions(nameOrId: string, questions: readonly DatasetQuestion[], now: number): void {
    const row = this.#row(nameOrId);
    transaction(this.#db, () => {
      this.#insert(row.id, questions);
      this.#touch(row.id, now);
    });
  }

  #insert(datasetId: string, questions: readonly DatasetQuestion[]): void {
    const next = this.#db
      .prepare(
        'SELECT COALESCE(MAX(seq), -1) + 1 AS seq FROM dataset_questions WHERE dataset_id = ?',
      )
      .get(datasetId) as { seq: number };
    const insert = this.#db.prepare(
      `INSERT INTO dataset_questions (dataset_id, id, seq, question, set_name, paper_ids, gold, split,
         group_id, status, provenance, edited_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    questions.forEach((q, i) => {
      insert.run(
        datasetId,
        q.id,
        next.seq + i,
        q.question,
        q.set,
        JSON.stringify(q.paperIds),
        JSON.stringify(q.gold),
        q.split,
        q.group,
        q.status,
        JSON.stringify(q.provenance),
        q.editedAt,
      );
    });
  }

  #touch(datasetId: string, now: number): void {
    this.#db.prepare('UPDATE datasets SET updated_at = ? WHERE id = ?').run(now, datasetId);
  }

  /** A finished generation group: its outcome and its questions, together or not at all. */
  recordGroup(
    nameOrId: string,
    outcome: GroupOutcome,
    questions: readonly DatasetQuestion[],
    now: number,
  ): void {
    const row = this.#row(nameOrId);
    transaction(this.#db, () => {
      const seq = this.#db
        .prepare(
          'SELECT COALESCE(MAX(seq), -1) + 1 AS seq FROM dataset_groups WHERE dataset_id = ?',
        )
        .get(row.id) as { seq: number };
      this.#db
        .prepare(
          'INSERT INTO dataset_groups (dataset_id, seq, group_id, outcome) VALUES (?, ?, ?, ?)',
        )
        .run(row.id, seq.seq, outcome.group, JSON.stringify(outcome));
      this.#insert(row.id, questions);
      this.#touch(row.id, now);
    });
  }

  /** Every attempt at a group, in order (a failed group asked again has two). */
  groupOutcomes(nameOrId: string): GroupOutcome[] {
    const row = this.#find(nameOrId);
    if (!row) return [];
    const rows = this.#db
      .prepare('SELECT outcome FROM dataset_groups WHERE dataset_id = ? ORDER BY seq')
      .all(row.id) as { outcome: string }[];
    return rows.map((r) => JSON.parse(r.outcome) as GroupOutcome);
  }

  questions(nameOrId: string, filter: QuestionFilter = {}): DatasetQuestion[] {
    const row = this.#row(nameOrId);
    const rows = this.#db
      .prepare('SELECT * FROM dataset_questions WHERE dataset_id = ? ORDER BY seq')
      .all(row.id) as unknown as QuestionRow[];
    const text = filter.text?.toLowerCase();
    return rows
      .map(toQuestion)
      .filter(
        (q) =>
          (filter.split === undefined || q.split === filter.split) &&
          (filter.group === undefined || q.group === filter.group) &&
          (filter.status === undefined || q.status === filter.status) &&
          (filter.source === undefined || sourceOf(q) === filter.source) &&
          (text === undefined || q.question.toLowerCase().includes(text)),
      );
  }

  question(nameOrId: string, id: string): DatasetQuestion {
    const row = this.#row(nameOrId);
    const found = this.#db
      .prepare('SELECT * FROM dataset_questions WHERE dataset_id = ? AND id = ?')
      .get(row.id, id) as QuestionRow | undefined;
    if (!found) throw new QuestionNotFoundError(row.name, id);
    return toQuestion(found);
  }

  /** Changes a question; a change of its text or spans marks it edited by hand. */
  editQuestion(nameOrId: string, id: string, edit: QuestionEdit, now: number): DatasetQuestion {
    const row = this.#row(nameOrId);
    const current = this.question(row.id, id);
    const content = edit.question !== undefined || edit.gold !== undefined;
    const next: DatasetQuestion = {
      ...current,
      question: edit.question ?? current.question,
      gold: edit.gold ?? current.gold,
      status: edit.status ?? current.status,
      split: edit.split ?? current.split,
      editedAt: content ? now : current.editedAt,
    };
    this.#db
      .prepare(
        `UPDATE dataset_questions SET question = ?, gold = ?, status = ?, split = ?, edited_at = ?
         WHERE dataset_id = ? AND id = ?`,
      )
      .run(
        next.question,
        JSON.stringify(next.gold),
        next.status,
        next.split,
        next.editedAt,
        row.id,
        id,
      );
    this.#touch(row.id, now);
    return next;
  }

  deleteQuestion(nameOrId: string, id: string, now: number): void {
    const row = this.#row(nameOrId);
    const result = this.#db
      .prepare('DELETE FROM dataset_questions WHERE dataset_id = ? AND id = ?')
      .run(row.id, id);
    if (result.changes === 0) throw new QuestionNotFoundError(row.name, id);
    this.#touch(row.id, now);
  }
}

/** A question's source: hand-edited wins over where it came from. */
export function sourceOf(q: DatasetQuestion): 'teacher' | 'imported' | 'hand' {
  return q.editedAt !== null ? 'hand' : q.provenance.kind;
}

function toQuestion(row: QuestionRow): DatasetQuestion {
  return {
    id: row.id,
    question: row.question,
    set: row.set_name,
    paperIds: JSON.parse(row.paper_ids) as string[],
    gold: JSON.parse(row.gold) as DatasetQuestion['gold'],
    split: row.split,
    group: row.group_id,
    status: row.status,
    provenance: JSON.parse(row.provenance) as DatasetQuestion['provenance'],
    editedAt: row.edited_at,
  };
}
