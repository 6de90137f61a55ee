// Following a log another tool is still writing (an rlm JSONL, a nano-rlm session folder, a
// folder where such logs appear): each change is read again with `open` readers, and the events
// not sent before (by their keys, stable across re-reads) are appended to the run through a run
// writer and handed to `emit`, exactly as a live run's are. A run ends when its log says so (a
// final answer); the follow ends once every run has ended and the files are quiet, or when
// nothing changed for `idleMs` (open runs then end interrupted), or when it is stopped.
import { randomUUID } from 'node:crypto';
import { RunEvent, type RunEventOf } from '../../api/index.ts';
import type { RunStore, RunWriter } from '../index.ts';
import { problemOf, type ImportReport } from './import.ts';
import { logSourcesAt, readLogSource, sourceStamp, type LogSource } from './sources.ts';
import type { ImportedRun, RunLogFormat } from './types.ts';

export interface FollowOptions {
  format?: RunLogFormat | 'auto';
  /** How often the files are looked at. */
  pollMs?: number;
  /** No change for this long ends the follow; runs still open end interrupted. */
  idleMs?: number;
  /** Once every run seen has ended, this much quiet ends the follow. */
  settleMs?: number;
  now?: () => number;
}

export interface FollowedRun {
  runId: string;
  source: string;
  format: RunLogFormat;
  question: string;
  status: 'running' | RunEventOf<'run.finished'>['status'];
  events: number;
}

export interface FollowState {
  followId: string;
  path: string;
  state: 'following' | 'ended';
  /** Why it ended: 'answered', 'idle', 'stopped', or the error that ended it. */
  ended: string | null;
  runs: FollowedRun[];
  problems: ImportReport['problems'];
}

interface Tracked {
  run: FollowedRun;
  writer: RunWriter;
  sent: Set<string>;
  lastAt: number;
  totals: { agents: number; turns: number; input: number; output: number; cost: number | null };
  startedAt: number;
}

export type FollowEmit = (runId: string, event: RunEvent, seq: number) => void;

export class RunLogFollower {
  readonly followId = randomUUID();
  readonly path: string;
  readonly #store: RunStore;
  readonly #emit: FollowEmit;
  readonly #options: Required<Omit<FollowOptions, 'format'>> & { format: RunLogFormat | 'auto' };
  readonly #runs = new Map<string, Tracked>();
  readonly #stamps = new Map<string, string>();
  readonly #problems = new Map<string, ImportReport['problems'][number]>();
  readonly #listeners = new Set<(state: FollowState) => void>();
  #lastChange: number;
  #ended: string | null = null;
  #timer: ReturnType<typeof setInterval> | null = null;
  #finished: Promise<FollowState>;
  #resolve: (state: FollowState) => void = () => undefined;

  constructor(store: RunStore, path: string, emit: FollowEmit, options: FollowOptions = {}) {
    this.#store = store;
    this.path = path;
    this.#emit = emit;
    this.#options = {
      format: options.format ?? 'auto',
      pollMs: options.pollMs ?? 250,
      idleMs: options.idleMs ?? 30_000,
      settleMs: options.settleMs ?? 1_000,
      now: options.now ?? Date.now,
    };
    // The path must be there (a missing one is the caller's error now, not an idle follow).
    logSourcesAt(path, { allowEmpty: true });
    this.#lastChange = this.#options.now();
    this.#finished = new Promise((resolve) => {
      this.#resolve = resolve;
    });
  }

  /** Polls until the follow ends; resolves with how it ended. */
  start(): Promise<FollowState> {
    this.poll();
    if (!this.#ended)
      this.#timer ??= setInterval(() => {
        this.poll();
      }, this.#options.pollMs);
    return this.#finished;
  }

  get finished(): Promise<FollowState> {
    return this.#finished;
  }

  onChange(listener: (state: FollowState) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  state(): FollowState {
    return {
      followId: this.followId,
      path: this.path,
      state: this.#ended ? 'ended' : 'following',
      ended: this.#ended,
      runs: [...this.#runs.values()].map((t) => ({ ...t.run })),
      problems: [...this.#problems.values()],
    };
  }

  /** Ends the follow now; its open runs end interrupted. */
  stop(reason = 'stopped'): FollowState {
    if (!this.#ended)
      this.#end(reason, 'following was stopped before the run gave its final answer');
    return this.state();
  }

  /** One look at the files: new events appended, endings decided. */
  poll(): void {
    if (this.#ended) return;
    const now = this.#options.now();
    let changed = false;
    try {
      for (const source of logSourcesAt(this.path, { allowEmpty: true }))
        changed = this.#read(source) || changed;
    } catch (error) {
      this.#end(
        error instanceof Error ? `${error.name}: ${error.message}` : String(error),
        'the log could not be read any more',
      );
      return;
    }
    if (changed) {
      this.#lastChange = now;
      this.#notify();
    }
    const quiet = now - this.#lastChange;
    const open = [...this.#runs.values()].some((t) => t.run.status === 'running');
    if (this.#runs.size > 0 && !open && quiet >= this.#options.settleMs) this.#end('answered', '');
    else if (quiet >= this.#options.idleMs)
      this.#end(
        'idle',
        `the log stopped changing for ${Math.round(this.#options.idleMs / 1000)} s before the run gave its final answer`,
      );
  }

  #read(source: LogSource): boolean {
    const stamp = sourceStamp(source);
    if (this.#stamps.get(source.path) === stamp) return false;
    this.#stamps.set(source.path, stamp);
    let parsed;
    try {
      parsed = readLogSource(source, {
        ...(source.kind === 'file' ? { format: this.#options.format } : {}),
        open: true,
        now: this.#options.now(),
      });
    } catch (error) {
      // A file that is not (yet) a log: said once, looked at again when it changes.
      if (error instanceof Error)
        this.#problems.set(`${source.path}:format`, {
          line: 0,
          file: source.path,
          name: error.name,
          message: error.message,
        });
      return true;
    }
    for (const problem of parsed.problems) {
      const reported = problemOf(problem);
      this.#problems.set(`${source.path}:${reported.file ?? ''}:${reported.line}`, {
        ...reported,
        file: reported.file ?? source.path,
      });
    }
    parsed.runs.forEach((run, index) => {
      this.#follow(`${source.path}#${run.key ?? index}`, source.path, parsed.format, run);
    });
    return true;
  }

  #follow(key: string, source: string, format: RunLogFormat, run: ImportedRun): void {
    let tracked = this.#runs.get(key);
    if (!tracked) {
      const runId = randomUUID();
      tracked = {
        run: { runId, source, format, question: run.question, status: 'running', events: 0 },
        writer: this.#store.writer({
          id: runId,
          question: run.question,
          set: run.set,
          model: run.model,
          source: format,
          createdAt: run.createdAt,
        }),
        sent: new Set(),
        lastAt: 0,
        totals: { agents: 0, turns: 0, input: 0, output: 0, cost: null },
        startedAt: run.createdAt,
      };
      this.#runs.set(key, tracked);
    }
    if (tracked.run.status !== 'running') return;
    run.events.forEach((event, i) => {
      const eventKey = run.eventKeys?.[i] ?? String(i);
      if (!tracked.sent.has(eventKey)) {
        tracked.sent.add(eventKey);
        this.#append(
          tracked,
          event.kind === 'run.started' ? { ...event, runId: tracked.run.runId } : event,
        );
      }
    });
  }

  #append(tracked: Tracked, raw: RunEvent): void {
    if (tracked.run.status !== 'running') return;
    // Events merged from several files may come after later ones: time never goes back.
    const event = RunEvent.parse({ ...raw, at: Math.max(Math.round(raw.at), tracked.lastAt) });
    tracked.lastAt = event.at;
    const totals = tracked.totals;
    if (event.kind === 'agent.spawned') totals.agents++;
    else if (event.kind === 'turn.started') totals.turns++;
    else if (event.kind === 'model.done') {
      totals.input += event.usage.inputTokens;
      totals.output += event.usage.outputTokens;
      if (event.costUsd !== null) totals.cost = (totals.cost ?? 0) + event.costUsd;
    } else if (event.kind === 'run.finished') tracked.run.status = event.status;
    tracked.run.events++;
    this.#emit(tracked.run.runId, event, tracked.writer.append(event));
  }

  #end(reason: string, interruption: string): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    this.#ended = reason;
    for (const tracked of this.#runs.values()) {
      if (tracked.run.status !== 'running') continue;
      const { totals } = tracked;
      this.#append(tracked, {
        kind: 'run.finished',
        at: Math.max(tracked.lastAt, this.#options.now()),
        status: 'interrupted',
        answer: null,
        agents: totals.agents,
        turns: totals.turns,
        usage: { inputTokens: totals.input, outputTokens: totals.output },
        costUsd: totals.cost,
        durationMs: Math.max(0, tracked.lastAt - tracked.startedAt),
        error: {
          name: reason === 'idle' ? 'RunLogStoppedChangingError' : 'RunLogFollowStoppedError',
          message: interruption,
        },
      });
    }
    for (const tracked of this.#runs.values()) tracked.writer.flush();
    this.#notify();
    this.#resolve(this.state());
  }

  #notify(): void {
    const state = this.state();
    for (const listener of this.#listeners) listener(state);
  }
}
