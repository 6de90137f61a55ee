// Inside the interpreter process: which agent's Python runs right now, its time budget, its output,
// and the one host callable Python's built-ins use. Invariant: Python tells us every switch
// (begin/resume in, call/end out), so time and output are charged to the agent that really ran.
import type { CallOp, HostMessage, InterpreterMessage, InterpreterSettings } from '../protocol.ts';

export interface RunState {
  readonly runId: number;
  readonly agentId: string;
  readonly timeoutMs: number;
  /** Time this run's own Python may still use; suspended time (awaiting the host) is not charged. */
  budgetMs: number;
  segmentStart: number;
  deadline: number;
  phase: 'code' | 'collect' | 'quiet';
  cancelled: boolean;
  stdout: string[];
  stderr: string[];
  keptChars: number;
  droppedChars: number;
  pendingCall: { callId: number; resolve: (envelope: string) => void } | null;
}

type Send = (message: InterpreterMessage) => void;

export class RunTable {
  readonly #settings: InterpreterSettings;
  readonly #send: Send;
  readonly #byAgent = new Map<string, RunState>();
  readonly #byRun = new Map<number, RunState>();
  readonly #calls = new Map<number, RunState>();
  #active: RunState | null = null;
  #nextCallId = 1;
  /** A signal was raised and Python's handler has not asked for its reason yet (no re-entry). */
  #signalPending = false;

  /** Run ids cancelled through the cancel pipe (slot = runId % length), written by a worker. */
  readonly #cancelSlots: Int32Array;

  constructor(settings: InterpreterSettings, send: Send, cancelSlots: Int32Array) {
    this.#settings = settings;
    this.#send = send;
    this.#cancelSlots = cancelSlots;
  }

  #isCancelled(run: RunState): boolean {
    if (
      !run.cancelled &&
      Atomics.load(this.#cancelSlots, run.runId % this.#cancelSlots.length) === run.runId
    ) {
      run.cancelled = true;
    }
    return run.cancelled;
  }

  start(message: Extract<HostMessage, { kind: 'run' }>): RunState {
    const run: RunState = {
      runId: message.runId,
      agentId: message.agentId,
      timeoutMs: message.timeoutMs,
      budgetMs: message.timeoutMs,
      segmentStart: 0,
      deadline: Infinity,
      phase: 'code',
      cancelled: false,
      stdout: [],
      stderr: [],
      keptChars: 0,
      droppedChars: 0,
      pendingCall: null,
    };
    this.#byAgent.set(run.agentId, run);
    this.#byRun.set(run.runId, run);
    return run;
  }

  finish(run: RunState): void {
    this.#byAgent.delete(run.agentId);
    this.#byRun.delete(run.runId);
    if (this.#active === run) this.#active = null;
  }

  isBusy(agentId: string): boolean {
    return this.#byAgent.has(agentId);
  }

  cancel(runId: number): void {
    const run = this.#byRun.get(runId);
    if (!run) return;
    run.cancelled = true;
    this.#settle(run, JSON.stringify({ cancelled: true }));
  }

  reply(callId: number, envelope: string): void {
    const run = this.#calls.get(callId);
    if (run?.pendingCall?.callId === callId) this.#settle(run, envelope);
  }

  #settle(run: RunState, envelope: string): void {
    const pending = run.pendingCall;
    if (!pending) return;
    run.pendingCall = null;
    this.#calls.delete(pending.callId);
    pending.resolve(envelope);
  }

  /** Read by Pyodide's eval loop every few dozen bytecodes (the interrupt buffer's slot 0). */
  shouldInterrupt(): boolean {
    const run = this.#active;
    if (this.#signalPending || !run || run.phase === 'quiet') return false;
    this.#signalPending = this.#isCancelled(run) || performance.now() > run.deadline;
    return this.#signalPending;
  }

  /** The one callable Python's runner and built-ins use to reach the host. */
  readonly host = (op: string, a?: unknown, b?: unknown, c?: unknown): unknown => {
    switch (op) {
      case 'write':
        this.#write(a === 2 ? 'stderr' : 'stdout', String(b));
        return undefined;
      case 'begin':
      case 'resume':
        this.#enter(String(a));
        return undefined;
      case 'call':
        return this.#call(String(a), String(b) as CallOp, String(c));
      case 'collect': {
        this.#phase('collect');
        return;
      }
      case 'quiet': {
        this.#phase('quiet');
        return;
      }
      case 'end':
        this.#active = null;
        return undefined;
      case 'reason':
        return this.#reason();
      default:
        throw new Error(`unknown host op ${op}`);
    }
  };

  #enter(agentId: string): void {
    const run = this.#byAgent.get(agentId) ?? null;
    this.#active = run;
    if (!run) return;
    run.segmentStart = performance.now();
    if (run.phase === 'code') run.deadline = run.segmentStart + run.budgetMs;
  }

  #phase(phase: 'collect' | 'quiet'): undefined {
    const run = this.#active;
    if (!run) return undefined;
    run.phase = phase;
    if (phase === 'collect') run.deadline = performance.now() + this.#settings.collectTimeoutMs;
    return undefined;
  }

  #call(agentId: string, op: CallOp, payload: string): Promise<string> {
    const run = this.#byAgent.get(agentId);
    if (this.#active === run) this.#active = null;
    if (!run) return Promise.resolve(JSON.stringify({ ok: false, error: 'no run in progress' }));
    run.budgetMs -= performance.now() - run.segmentStart;
    if (run.cancelled) return Promise.resolve(JSON.stringify({ cancelled: true }));
    const callId = this.#nextCallId++;
    this.#calls.set(callId, run);
    const reply = new Promise<string>((resolve) => {
      run.pendingCall = { callId, resolve };
    });
    this.#send({ kind: 'call', callId, runId: run.runId, op, payload });
    return reply;
  }

  #reason(): string {
    this.#signalPending = false;
    const run = this.#active;
    if (!run || run.phase === 'quiet') return '';
    if (this.#isCancelled(run)) return 'cancelled';
    if (performance.now() <= run.deadline) return '';
    return run.phase === 'collect' ? 'collect' : `timeout:${String(run.timeoutMs / 1000)}`;
  }

  #write(stream: 'stdout' | 'stderr', text: string): void {
    const run = this.#active;
    if (!run) return;
    const room = this.#settings.maxOutputChars - run.keptChars;
    if (room <= 0) {
      run.droppedChars += text.length;
      return;
    }
    const kept = text.length <= room ? text : text.slice(0, room);
    run[stream].push(kept);
    run.keptChars += kept.length;
    run.droppedChars += text.length - kept.length;
  }
}
