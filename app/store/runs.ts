// Runs as append-only event logs in SQLite. Events are buffered for a few milliseconds and
// written in one transaction, so a busy run costs few syncs; a killed process loses at most that
// window and its run is marked interrupted the next time a workspace opens its runs.
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { RunEvent, RunFilter, RunStatus } from '../api/index.ts';
import { transaction } from './database.ts';
import { decodeEvents, decodeEventsJson, storedJson, TextIds, textInsert } from './run-texts.ts';

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
    this.#queue.addRun({ ...run, createdAt: Date.now() });
    return new RunWriter(this.#queue, run.id);
  }
}

interface NewRun {
  id: string;
  question: string;
  set: string;
  model: string;
  parentRunId?: string;
  source?: string;
}

interface FlushStatements {
  create: StatementSync;
  insert: StatementSync;
  finish: StatementSync;
  insertText: StatementSync;
}

interface Holder {
  busy: () => boolean;
  maxDelayMs: number;
  quietMs: number;
}

/** Several holders as one: busy while any is, the shortest deadline, the longest quiet time. */
function combinedHold(holders: ReadonlySet<Holder>): Holder | null {
  const all = [...holders];
  if (all.length === 0) return null;
  if (all.length === 1) return all[0] ?? null;
  return {
    busy: () => all.some((holder) => holder.busy()),
    maxDelayMs: Math.min(...all.map((holder) => holder.maxDelayMs)),
    quietMs: Math.max(...all.map((holder) => holder.quietMs)),
  };
}

/**
 * Events of every run of one store, written together: one transaction per flush whatever the
 * number of concurrent runs (128 runs flushing on their own would mean thousands of syncs a second).
 */
class EventQueue {
  readonly #db: DatabaseSync;
  readonly #flushMs: number;
  #items: { writer: RunWriter; event: RunEvent }[] = [];
  #runs: (NewRun & { createdAt: number })[] = [];
  #timer: NodeJS.Timeout | null = null;
  /** A flush at the end of this event-loop turn, for events that should not wait flushMs. */
  #soon: NodeJS.Immediate | null = null;
  #waiters: { resolve: () => void; reject: (error: unknown) => void }[] = [];
  /** Prepared on the first flush and kept: a burst flushes every 25 ms. */
  #statements: FlushStatements | null = null;
  /** See RunStore.holdWritesWhile; none: write flushMs after the first waiting item. */
  readonly #holders = new Set<Holder>();
  /** What the holders ask together (null without any). */
  #hold: Holder | null = null;
  /** When the oldest and the newest waiting item came (performance.now()), under a hold. */
  #oldestAt = 0;
  #newestAt = 0;

  constructor(db: DatabaseSync, flushMs: number) {
    this.#db = db;
    this.#flushMs = flushMs;
  }

  addRun(run: NewRun & { createdAt: number }): void {
    this.#runs.push(run);
    this.#schedule();
  }

  addHolder(holder: Holder): void {
    this.#holders.add(holder);
    this.#hold = combinedHold(this.#holders);
  }

  removeHolder(holder: Holder): void {
    if (this.#holders.delete(holder)) this.#hold = combinedHold(this.#holders);
  }

  // The timer only asks for a flush at the end of an event-loop turn: a timer fires before the turn's
  // I/O, and a burst's events (128 runs starting, 384 replies) would then be written before the
  // requests and replies that are ready, delaying each of them by the write.
  #schedule(): void {
    if (this.#hold) {
      this.#scheduleHeld(this.#hold);
      return;
    }
    this.#timer ??= setTimeout(() => {
      this.#scheduleSoon();
    }, this.#flushMs);
  }

  // One timer per wait, not per item: when it fires it checks whether items kept coming or the
  // REPL is busy, and waits again (for the rest of the quiet time, or up to the deadline) if so.
  // It asks the holders as they are then: with the last one released, it writes.
  #scheduleHeld(first: Holder): void {
    const now = performance.now();
    this.#newestAt = now;
    if (this.#timer || this.#soon) return;
    this.#oldestAt = now;
    const wait = (ms: number) => {
      this.#timer = setTimeout(() => {
        this.#timer = null;
        const hold = this.#hold;
        if (!hold) {
          this.#scheduleSoon();
          return;
        }
        const at = performance.now();
        const quietLeft = this.#newestAt + hold.quietMs - at;
        const deadlineLeft = this.#oldestAt + hold.maxDelayMs - at;
        if (deadlineLeft <= 0 || (quietLeft <= 0 && !hold.busy())) this.#scheduleSoon();
        else wait(Math.min(quietLeft > 0 ? quietLeft : hold.quietMs, deadlineLeft));
      }, ms);
    };
    wait(first.quietMs);
  }

  #scheduleSoon(): void {
    this.#soon ??= setImmediate(() => {
      this.flush();
    });
  }

  /**
   * `urgent` events (a run's end) are written at the end of this event-loop turn rather than
   * flushMs later: runs that end together (128 roots answered by one burst of replies) share one
   * transaction instead of a sync each.
   */
  push(writer: RunWriter, event: RunEvent, urgent: boolean): void {
    this.#items.push({ writer, event });
    if (urgent) this.#scheduleSoon();
    else this.#schedule();
  }

  /** Resolves once everything queued now is written (at the end of this event-loop turn). */
  flushed(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#waiters.push({ resolve, reject });
      this.#scheduleSoon();
    });
  }

  flush(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    if (this.#soon) clearImmediate(this.#soon);
    this.#soon = null;
    const waiters = this.#waiters;
    this.#waiters = [];
    try {
      this.#write();
    } catch (error) {
      for (const waiter of waiters) waiter.reject(error);
      throw error;
    }
    for (const waiter of waiters) waiter.resolve();
  }

  #prepare(): FlushStatements {
    return {
      create: this.#db.prepare(
        'INSERT INTO runs (id, created_at, status, question, set_name, model, parent_run_id, owner_pid, source) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
      ),
      insert: this.#db.prepare(
        'INSERT INTO run_events (run_id, seq, at, kind, agent_id, data) VALUES (?, ?, ?, ?, ?, ?)',
      ),
      finish: this.#db.prepare(
        `UPDATE runs SET status = ?, finished_at = ?, answer = ?, agents = ?, turns = ?, input_tokens = ?,
         output_tokens = ?, cost_usd = ?, error = ? WHERE id = ?`,
      ),
      insertText: textInsert(this.#db),
    };
  }

  #write(): void {
    if (this.#items.length === 0 && this.#runs.length === 0) return;
    const items = this.#items;
    const runs = this.#runs;
    this.#items = [];
    this.#runs = [];
    const { create, insert, finish, insertText } = (this.#statements ??= this.#prepare());
    // Text ids handed out in this transaction stand only if it commits.
    const touched = new Set<RunWriter>();
    try {
      transaction(this.#db, () => {
        for (const run of runs) {
          create.run(
            run.id,
            run.createdAt,
            'running',
            run.question,
            run.set,
            run.model,
            run.parentRunId ?? null,
            process.pid,
            run.source ?? 'live',
          );
        }
        for (const { writer, event } of items) {
          if (event.kind === 'turn.started') touched.add(writer);
          insert.run(
            writer.runId,
            writer.nextSeq(),
            event.at,
            event.kind,
            'agentId' in event ? event.agentId : null,
            storedJson(event, writer.texts, insertText),
          );
          if (event.kind === 'run.finished') {
            finish.run(
              event.status,
              event.at,
              JSON.stringify(event.answer ?? null),
              event.agents,
              event.turns,
              event.usage.inputTokens,
              event.usage.outputTokens,
              event.costUsd,
              event.error ? JSON.stringify(event.error) : null,
              writer.runId,
            );
          }
        }
      });
    } catch (error) {
      for (const writer of touched) writer.texts.rollback();
      throw error;
    }
    for (const writer of touched) writer.texts.commit();
  }
}

export class RunWriter {
  readonly runId: string;
  /** Ids of this run's prompt texts in run_texts (see run-texts.ts). */
  readonly texts: TextIds;
  readonly #queue: EventQueue;
  #seq = 0;

  constructor(queue: EventQueue, runId: string) {
    this.#queue = queue;
    this.runId = runId;
    this.texts = new TextIds(runId);
  }

  nextSeq(): number {
    return this.#seq++;
  }

  #appended = 0;

  /** Queues an event; returns its index in the run's log (its seq once written). */
  append(event: RunEvent): number {
    this.#queue.push(this, event, event.kind === 'run.finished');
    return this.#appended++;
  }

  /** Writes everything queued (of every run of the store) now. */
  flush(): void {
    this.#queue.flush();
  }

  /** Resolves once everything queued is written, batched with whatever else ends this turn. */
  flushed(): Promise<void> {
    return this.#queue.flushed();
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
