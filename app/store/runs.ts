// Runs as append-only event logs in SQLite. Events are buffered for a few milliseconds and
// written in one transaction, so a busy run costs few syncs; a killed process loses at most that
// window and its run is marked interrupted the next time a workspace opens its runs.
import type { DatabaseSync } from 'node:sqlite';
import type { RunEvent, RunFilter, RunStatus } from '../api/index.ts';
import { transaction } from './database.ts';
import { decodeEvents, decodeEventsJson, storedJson, TextIds, textInsert } from './run-texts.ts';
import { EventQueue, RunWriter, type Holder, type NewRun } from './run-writer.ts';

export { RunWriter } from './run-writer.ts';

export interface RunSummary {
  id: string;
  createdAt: number;
  finishedAt: number | null;
  status: RunStatus;
  question: string;
  set: string;
  model: string;
  answer: unknown;
  agents: number;
  turns: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number | null;
  error: { name: string; message: string } | null;
  parentRunId: string | null;
  score: number | null;
  source: string;
}

interface RunRow {
  id: string;
  created_at: number;
  finished_at: number | null;
  status: RunStatus;
  question: string;
  set_name: string;
  model: string;
  answer: string | null;
  agents: number;
  turns: number;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number | null;
  error: string | null;
  parent_run_id: string | null;
  score: number | null;
  /** runs.score, else the newest eval result's (see scoreSql). */
  effective_score?: number | null;
  source: string;
}

export class RunNotFoundError extends Error {
  override readonly name = 'RunNotFoundError';
  constructor(id: string) {
    super(`There is no run '${id}' in this workspace; list runs with \`rlm-studio runs\``);
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function toSummary(row: RunRow): RunSummary {
  return {
    id: row.id,
    createdAt: row.created_at,
    finishedAt: row.finished_at,
    status: row.status,
    question: row.question,
    set: row.set_name,
    model: row.model,
    answer: row.answer === null ? null : (JSON.parse(row.answer) as unknown),
    agents: row.agents,
    turns: row.turns,
    inputTokens: row.input_tokens,
    outputTokens: row.output_tokens,
    costUsd: row.cost_usd,
    error: row.error === null ? null : (JSON.parse(row.error) as { name: string; message: string }),
    parentRunId: row.parent_run_id,
    score: row.effective_score === undefined ? row.score : row.effective_score,
    source: row.source,
  };
}

/** A finished run written whole (an import, a demo, a synthetic run): its row and its log. */
export interface StoredRun {
  id: string;
  question: string;
  set: string;
  model: string;
  source: string;
  parentRunId?: string | null;
  score?: number | null;
  createdAt: number;
}

export class RunIdTakenError extends Error {
  override readonly name = 'RunIdTakenError';
  constructor(id: string) {
    super(
      `The workspace already holds a run '${id}'; import it under a new id or delete the old one`,
    );
  }
}

/**
 * A run's score: its own (an imported reward, setScore) or else the newest eval result for it (the
 * rubric when judged, else span F1).
 */
const scoreSql = `COALESCE(runs.score, (SELECT COALESCE(rubric, span_f1) FROM eval_results
  WHERE eval_results.run_id = runs.id ORDER BY finished_at DESC LIMIT 1))`;

function filterSql(filter: RunFilter): { where: string; params: (string | number)[] } {
  const clauses: string[] = [];
  const params: (string | number)[] = [];
  if (filter.status && filter.status.length > 0) {
    clauses.push(`status IN (${filter.status.map(() => '?').join(', ')})`);
    params.push(...filter.status);
  }
  const like = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  if (filter.model) {
    clauses.push("model LIKE ? ESCAPE '\\'");
    params.push(like(filter.model));
  }
  if (filter.set !== undefined) {
    clauses.push('set_name = ?');
    params.push(filter.set);
  }
  if (filter.source !== undefined) {
    clauses.push('source = ?');
    params.push(filter.source);
  }
  if (filter.parentRunId !== undefined) {
    clauses.push('parent_run_id = ?');
    params.push(filter.parentRunId);
  }
  if (filter.minScore !== undefined) {
    clauses.push(`${scoreSql} >= ?`);
    params.push(filter.minScore);
  }
  if (filter.maxScore !== undefined) {
    clauses.push(`${scoreSql} <= ?`);
    params.push(filter.maxScore);
  }
  if (filter.minDurationMs !== undefined) {
    clauses.push('finished_at - created_at >= ?');
    params.push(filter.minDurationMs);
  }
  if (filter.maxDurationMs !== undefined) {
    clauses.push('finished_at - created_at <= ?');
    params.push(filter.maxDurationMs);
  }
  if (filter.from !== undefined) {
    clauses.push('created_at >= ?');
    params.push(filter.from);
  }
  if (filter.to !== undefined) {
    clauses.push('created_at <= ?');
    params.push(filter.to);
  }
  if (filter.text) {
    clauses.push(
      "(question LIKE ? ESCAPE '\\' OR answer LIKE ? ESCAPE '\\' OR model LIKE ? ESCAPE '\\' OR id LIKE ? ESCAPE '\\')",
    );
    params.push(...Array.from({ length: 4 }, () => like(filter.text ?? '')));
  }
  return { where: clauses.length > 0 ? `WHERE ${clauses.join(' AND ')}` : '', params };
}

export class RunStore {
  readonly #db: DatabaseSync;
  readonly #queue: EventQueue;
  constructor(db: DatabaseSync, flushMs = 25) {
    this.#db = db;
    this.#queue = new EventQueue(db, flushMs);
  }

  /**
   * From now on events wait for a moment when nothing is appended for `quietMs` and `busy()` is
   * false, and at most `maxDelayMs` after the oldest of them (a run's end, and any read, still
   * write at once). The RLM service passes "code is running in the REPL": with 512 agents a write
   * inside a burst of replies held up the requests that burst sends. Measured on bench:rlm's load,
   * two engines in one process, passes alternated: wall/critical path 1.241 -> 1.214 (mean of 12
   * pairs, 10 faster); writing nothing at all would give about 0.05.
   * Several holders (two RLM services on one workspace) hold together: events wait while any of
   * them is busy, up to the shortest deadline. Returns the release; with no holder left, events are
   * written flushMs after they come again.
   */
  holdWritesWhile(busy: () => boolean, maxDelayMs = 250, quietMs = 10): () => void {
    const holder: Holder = { busy, maxDelayMs, quietMs };
    this.#queue.addHolder(holder);
    return () => {
      this.#queue.removeHolder(holder);
    };
  }

  /** Marks runs left 'running' by a process that no longer exists as interrupted. */
  markInterrupted(now = Date.now()): number {
    this.#queue.flush();
    const rows = this.#db
      .prepare("SELECT id, owner_pid FROM runs WHERE status = 'running'")
      .all() as { id: string; owner_pid: number | null }[];
    let count = 0;
    for (const row of rows) {
      if (row.owner_pid !== null && row.owner_pid !== process.pid && isAlive(row.owner_pid))
        continue;
      if (row.owner_pid === process.pid) continue;
      this.#db
        .prepare("UPDATE runs SET status = 'interrupted', finished_at = ? WHERE id = ?")
        .run(now, row.id);
      count++;
    }
    return count;
  }

  list(filter: RunFilter = {}): RunSummary[] {
    this.markInterrupted();
    const { where, params } = filterSql(filter);
    const limit = filter.limit !== undefined ? ` LIMIT ${filter.limit}` : '';
    return (
      this.#db
        .prepare(
          `SELECT *, ${scoreSql} AS effective_score FROM runs ${where} ORDER BY created_at DESC${limit}`,
        )
        .all(...params) as unknown as RunRow[]
    ).map(toSummary);
  }

  has(id: string): boolean {
    this.#queue.flush();
    return this.#db.prepare('SELECT 1 FROM runs WHERE id = ?').get(id) !== undefined;
  }

  /**
   * Writes a whole run (row and events) in one transaction. Totals come from its run.finished
   * event; a log without one is stored as interrupted.
   */
  insertRun(run: StoredRun, events: readonly RunEvent[]): void {
    this.#queue.flush();
    const finished = events.findLast((event) => event.kind === 'run.finished');
    transaction(this.#db, () => {
      if (this.#db.prepare('SELECT 1 FROM runs WHERE id = ?').get(run.id) !== undefined)
        throw new RunIdTakenError(run.id);
      this.#db
        .prepare(
          `INSERT INTO runs (id, created_at, finished_at, status, question, set_name, model, answer,
             agents, turns, input_tokens, output_tokens, cost_usd, error, parent_run_id, owner_pid,
             score, source)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?)`,
        )
        .run(
          run.id,
          Math.round(run.createdAt),
          Math.round(finished?.at ?? events.at(-1)?.at ?? run.createdAt),
          finished?.status ?? 'interrupted',
          run.question,
          run.set,
          run.model,
          JSON.stringify(finished?.answer ?? null),
          finished?.agents ?? 0,
          finished?.turns ?? 0,
          finished?.usage.inputTokens ?? 0,
          finished?.usage.outputTokens ?? 0,
          finished?.costUsd ?? null,
          finished?.error ? JSON.stringify(finished.error) : null,
          run.parentRunId ?? null,
          run.score ?? null,
          run.source,
        );
      const insert = this.#db.prepare(
        'INSERT INTO run_events (run_id, seq, at, kind, agent_id, data) VALUES (?, ?, ?, ?, ?, ?)',
      );
      const ids = new TextIds(run.id);
      const insertText = textInsert(this.#db);
      events.forEach((event, seq) => {
        insert.run(
          run.id,
          seq,
          Math.round(event.at),
          event.kind,
          'agentId' in event ? event.agentId : null,
          storedJson(event, ids, insertText),
        );
      });
    });
  }

  /** Records a run's score (an eval's reward); null clears it. */
  setScore(id: string, score: number | null): void {
    this.#queue.flush();
    if (this.#db.prepare('UPDATE runs SET score = ? WHERE id = ?').run(score, id).changes === 0)
      throw new RunNotFoundError(id);
  }

  get(id: string): RunSummary {
    this.markInterrupted();
    const row = this.#db
      .prepare(`SELECT *, ${scoreSql} AS effective_score FROM runs WHERE id = ?`)
      .get(id) as RunRow | undefined;
    if (!row) throw new RunNotFoundError(id);
    return toSummary(row);
  }

  events(id: string): RunEvent[] {
    return decodeEvents(this.#db, id, this.#rows(id));
  }

  /**
   * The same log as `events`, as the JSON text of the array: the stored rows joined, not re-parsed
   * (prompt texts are spliced back into turn.started rows as text).
   */
  eventsJson(id: string): string {
    return decodeEventsJson(this.#db, id, this.#rows(id));
  }

  #rows(id: string): { kind: string; data: string }[] {
    this.#queue.flush();
    const rows = this.#db
      .prepare('SELECT kind, data FROM run_events WHERE run_id = ? ORDER BY seq')
      .all(id) as { kind: string; data: string }[];
    if (rows.length === 0) this.get(id);
    return rows;
  }

  remove(id: string): boolean {
    this.#queue.flush();
    return this.#db.prepare('DELETE FROM runs WHERE id = ?').run(id).changes > 0;
  }

  /**
   * A writer for a new run. Its row (status running) is written with the first flush of the
   * queue, in the same transaction as its first events, and any read of this store flushes first,
   * so readers never miss it: 128 runs starting at once cost one sync, not 256.
   */
  writer(run: NewRun): RunWriter {
    this.#queue.addRun({ ...run, createdAt: Math.round(run.createdAt ?? Date.now()) });
    return new RunWriter(this.#queue, run.id);
  }
}

/** What a stored run's model said, by agent and turn: backs `replay:RUN`. */
export function replayLookup(
  store: RunStore,
  runId: string,
): (agentId: string, turn: number) => string | undefined {
  const answers = new Map<string, string>();
  for (const event of store.events(runId)) {
    if (event.kind === 'model.done') answers.set(`${event.agentId}#${event.turn}`, event.text);
  }
  return (agentId, turn) => answers.get(`${agentId}#${turn}`);
}
