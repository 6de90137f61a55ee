// Writing runs: a RunWriter per run appends its events to the store's one EventQueue, which
// buffers them for a few milliseconds (or while the REPL is busy: RunStore.holdWritesWhile) and
// writes every run's events in one transaction, with each new run's row in the same transaction
// as its first events.
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { RunEvent } from '../api/index.ts';
import { transaction } from './database.ts';
import { storedJson, TextIds, textInsert } from './run-texts.ts';

export interface NewRun {
  id: string;
  question: string;
  set: string;
  model: string;
  parentRunId?: string;
  source?: string;
  /** When the run began, where not now (a followed log's run began when the tool wrote it). */
  createdAt?: number;
}

interface FlushStatements {
  create: StatementSync;
  insert: StatementSync;
  finish: StatementSync;
  insertText: StatementSync;
}

export interface Holder {
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
export class EventQueue {
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
