// Evals and their per-question results in SQLite (migration 4). A result row is written in one
// statement when its question is fully scored, so a killed eval keeps every finished question and
// a restart runs exactly the ones without a row. An eval left 'running' by a dead process reads
// as interrupted.
import type { DatabaseSync } from 'node:sqlite';
import type {
  DatasetFormatName,
  EvalOptions,
  EvalResult,
  EvalStatus,
  EvalSummary,
} from '../api/index.ts';
import { transaction } from './database.ts';

export class EvalNotFoundError extends Error {
  override readonly name = 'EvalNotFoundError';
  constructor(id: string) {
    super(`There is no eval '${id}' in this workspace; list them with \`rlm-studio eval --list\``);
  }
}

interface EvalRow {
  id: string;
  created_at: number;
  updated_at: number;
  status: EvalStatus;
  dataset_path: string;
  dataset_name: string;
  format: DatasetFormatName;
  options: string;
  model: string;
  judge: string | null;
  total: number;
  error: string | null;
  owner_pid: number | null;
  done: number;
  failed: number;
}

interface ResultRow {
  eval_id: string;
  question_id: string;
  seq: number;
  run_id: string | null;
  status: 'done' | 'failed';
  question: string;
  set_name: string;
  paper_ids: string;
  answer: string | null;
  spans: string;
  gold: string;
  span_precision: number | null;
  span_recall: number | null;
  span_f1: number | null;
  evidence_f1: number | null;
  rubric: number | null;
  judge: string | null;
  latency_ms: number;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number | null;
  error: string | null;
  finished_at: number;
}

export interface NewEval {
  id: string;
  datasetPath: string;
  datasetName: string;
  format: DatasetFormatName;
  options: EvalOptions;
  model: string;
  judge: string | null;
  total: number;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const summarySql = `SELECT e.*,
  (SELECT COUNT(*) FROM eval_results r WHERE r.eval_id = e.id AND r.status = 'done') AS done,
  (SELECT COUNT(*) FROM eval_results r WHERE r.eval_id = e.id AND r.status = 'failed') AS failed
  FROM evals e`;

function toSummary(row: EvalRow): EvalSummary {
  return {
    id: row.id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    status: row.status,
    datasetPath: row.dataset_path,
    datasetName: row.dataset_name,
    format: row.format,
    options: JSON.parse(row.options) as EvalOptions,
    model: row.model,
    judge: row.judge,
    total: row.total,
    done: row.done,
    failed: row.failed,
    error: row.error === null ? null : (JSON.parse(row.error) as EvalSummary['error']),
  };
}

function parseJson(text: string | null): unknown {
  return text === null ? null : JSON.parse(text);
}

function toResult(row: ResultRow): EvalResult {
  return {
    evalId: row.eval_id,
    questionId: row.question_id,
    seq: row.seq,
    runId: row.run_id,
    status: row.status,
    question: row.question,
    set: row.set_name,
    paperIds: JSON.parse(row.paper_ids) as string[],
    answer: parseJson(row.answer),
    spans: JSON.parse(row.spans) as EvalResult['spans'],
    gold: JSON.parse(row.gold) as EvalResult['gold'],
    spanPrecision: row.span_precision,
    spanRecall: row.span_recall,
    spanF1: row.span_f1,
    evidenceF1: row.evidence_f1,
    rubric: row.rubric,
    judge: parseJson(row.judge) as EvalResult['judge'],
    latencyMs: row.latency_ms,
    inputTokens: row.input_tokens,
    outputTokens: row.output_tokens,
    costUsd: row.cost_usd,
    error: parseJson(row.error) as EvalResult['error'],
    finishedAt: row.finished_at,
  };
}

export class EvalStore {
  readonly #db: DatabaseSync;
  constructor(db: DatabaseSync) {
    this.#db = db;
  }

  /** Creates the eval, or takes an existing one over (a resume): running, owned by this process. */
  open(run: NewEval, now = Date.now()): EvalSummary {
    transaction(this.#db, () => {
      this.#db
        .prepare(
          `INSERT INTO evals (id, created_at, updated_at, status, dataset_path, dataset_name, format, options, model, judge, total, owner_pid)
           VALUES (?, ?, ?, 'running', ?, ?, ?, ?, ?, ?, ?, ?)
           ON CONFLICT(id) DO UPDATE SET status = 'running', updated_at = excluded.updated_at, options = excluded.options,
             total = excluded.total, error = NULL, owner_pid = excluded.owner_pid`,
        )
        .run(
          run.id,
          now,
          now,
          run.datasetPath,
          run.datasetName,
          run.format,
          JSON.stringify(run.options),
          run.model,
          run.judge,
          run.total,
          process.pid,
        );
    });
    return this.get(run.id);
  }

  markInterrupted(now = Date.now()): number {
    const rows = this.#db
      .prepare("SELECT id, owner_pid FROM evals WHERE status = 'running'")
      .all() as { id: string; owner_pid: number | null }[];
    let count = 0;
    for (const row of rows) {
      if (row.owner_pid === process.pid) continue;
      if (row.owner_pid !== null && isAlive(row.owner_pid)) continue;
      this.#db
        .prepare("UPDATE evals SET status = 'interrupted', updated_at = ? WHERE id = ?")
        .run(now, row.id);
      count++;
    }
    return count;
  }

  has(id: string): boolean {
    return this.#db.prepare('SELECT 1 FROM evals WHERE id = ?').get(id) !== undefined;
  }

  get(id: string): EvalSummary {
    const row = this.#db.prepare(`${summarySql} WHERE e.id = ?`).get(id) as EvalRow | undefined;
    if (!row) throw new EvalNotFoundError(id);
    return toSummary(row);
  }

  list(): EvalSummary[] {
    this.markInterrupted();
    return (
      this.#db.prepare(`${summarySql} ORDER BY e.created_at DESC`).all() as unknown as EvalRow[]
    ).map(toSummary);
  }

  finishedQuestions(id: string): Set<string> {
    const rows = this.#db
      .prepare('SELECT question_id FROM eval_results WHERE eval_id = ?')
      .all(id) as { question_id: string }[];
    return new Set(rows.map((row) => row.question_id));
  }

  saveResult(result: EvalResult): void {
    this.#db
      .prepare(
        `INSERT OR REPLACE INTO eval_results (eval_id, question_id, seq, run_id, status, question, set_name, paper_ids, answer,
           spans, gold, span_precision, span_recall, span_f1, evidence_f1, rubric, judge, latency_ms, input_tokens,
           output_tokens, cost_usd, error, finished_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        result.evalId,
        result.questionId,
        result.seq,
        result.runId,
        result.status,
        result.question,
        result.set,
        JSON.stringify(result.paperIds),
        result.answer === undefined ? null : JSON.stringify(result.answer),
        JSON.stringify(result.spans),
        JSON.stringify(result.gold),
        result.spanPrecision,
        result.spanRecall,
        result.spanF1,
        result.evidenceF1,
        result.rubric,
        result.judge === null ? null : JSON.stringify(result.judge),
        result.latencyMs,
        result.inputTokens,
        result.outputTokens,
        result.costUsd,
        result.error === null ? null : JSON.stringify(result.error),
        result.finishedAt,
      );
  }

  results(id: string): EvalResult[] {
    return (
      this.#db
        .prepare('SELECT * FROM eval_results WHERE eval_id = ? ORDER BY seq')
        .all(id) as unknown as ResultRow[]
    ).map(toResult);
  }

  /** The newest eval result recorded for a run (its gold spans and scores), or null. */
  resultForRun(runId: string): EvalResult | null {
    const row = this.#db
      .prepare('SELECT * FROM eval_results WHERE run_id = ? ORDER BY finished_at DESC LIMIT 1')
      .get(runId) as ResultRow | undefined;
    return row ? toResult(row) : null;
  }

  finish(
    id: string,
    status: EvalStatus,
    error: EvalSummary['error'] = null,
    now = Date.now(),
  ): void {
    this.#db
      .prepare(
        'UPDATE evals SET status = ?, error = ?, updated_at = ?, owner_pid = NULL WHERE id = ?',
      )
      .run(status, error === null ? null : JSON.stringify(error), now, id);
  }

  /** Drops an eval's results (a fresh start under the same id). */
  clearResults(id: string): void {
    this.#db.prepare('DELETE FROM eval_results WHERE eval_id = ?').run(id);
  }

  datasets(): { path: string; format: DatasetFormatName; name: string; lastUsed: number }[] {
    return this.#db
      .prepare(
        `SELECT dataset_path AS path, format, dataset_name AS name, MAX(updated_at) AS lastUsed
         FROM evals GROUP BY dataset_path, format ORDER BY lastUsed DESC`,
      )
      .all() as { path: string; format: DatasetFormatName; name: string; lastUsed: number }[];
  }
}
