// ReplSandbox: one sandboxed Pyodide interpreter (its own process) hosting many agents, each in
// its own namespace. Invariant: every run() that starts resolves, even if the interpreter dies
// (the result then says so and the agent keeps its context); it rejects only for caller mistakes.
import {
  AgentBusyError,
  AgentCreateError,
  AgentExistsError,
  ReplDisposedError,
  UnknownAgentError,
} from './errors.ts';
import { handleCall, type CallTarget } from './host-calls.ts';
import { InterpreterProcess } from './interpreter-process.ts';
import { resolveLimits } from './limits.ts';
import { SharedContexts } from './shared-contexts.ts';
import { executionResult, interruptedResult } from './results.ts';
import type { InterpreterMessage, RunOutcome } from './protocol.ts';
import type {
  AgentContext,
  ExecutionResult,
  ReplCallbacks,
  ReplLimits,
  ReplSearch,
  ReplStartOptions,
} from './types.ts';

interface AgentRecord extends CallTarget {
  contextJson: string;
  process: InterpreterProcess | null;
  /** Its context's id in `process` (shared-contexts.ts). */
  contextId: number | null;
  creating: Promise<InterpreterProcess> | null;
  running: boolean;
  /** Told to the agent in its next run after the interpreter restarted under it. */
  lostNote: string | null;
}

interface PendingRun {
  record: AgentRecord;
  process: InterpreterProcess;
  started: number;
  note: string | null;
  resolve(result: ExecutionResult): void;
  cleanup(): void;
}

interface PendingCreate {
  contextId: number;
  /** This create carried the context itself (the first agent with it in this process). */
  loads: boolean;
  resolve(): void;
  reject(error: Error): void;
}

async function defaultSearch(): Promise<ReplSearch> {
  const { KeywordIndex } = await import('../papers/search/index.ts');
  const indexes = new WeakMap<object, InstanceType<typeof KeywordIndex>>();
  return (texts, keyword, options) => {
    let index = indexes.get(texts);
    if (!index) {
      index = new KeywordIndex(texts);
      indexes.set(texts, index);
    }
    return index.search(keyword, options);
  };
}

function checkContext(agentId: string, context: AgentContext): void {
  if (typeof context === 'string') return;
  for (const [paperId, text] of Object.entries(context)) {
    if (typeof text !== 'string')
      throw new AgentCreateError(agentId, `context['${paperId}'] is not a string`);
  }
}

export class ReplSandbox {
  readonly limits: ReplLimits;
  readonly #callbacks: ReplCallbacks;
  readonly #search: ReplSearch;
  readonly #nodePath: string;
  readonly #collectTimeoutMs: number;
  readonly #hangGraceMs: number;
  readonly #agents = new Map<string, AgentRecord>();
  readonly #runs = new Map<number, PendingRun>();
  readonly #creates = new Map<InterpreterProcess, Map<string, PendingCreate>>();
  readonly #contexts = new Map<InterpreterProcess, SharedContexts>();
  #process: InterpreterProcess | null = null;
  #starting: Promise<InterpreterProcess> | null = null;
  #nextRunId = 1;
  #disposed = false;
  #restarts = 0;
  #startupMs = 0;

  private constructor(options: ReplStartOptions, search: ReplSearch) {
    this.limits = resolveLimits(options.limits);
    this.#callbacks = options.callbacks;
    this.#search = search;
    this.#nodePath = options.nodePath ?? process.execPath;
    this.#collectTimeoutMs = options.collectTimeoutMs ?? 2_000;
    this.#hangGraceMs = options.hangGraceMs ?? 5_000;
  }

  /** Starts the interpreter process (about 2-3 s) and resolves once it accepts agents. */
  static async start(options: ReplStartOptions): Promise<ReplSandbox> {
    const sandbox = new ReplSandbox(options, options.search ?? (await defaultSearch()));
    await sandbox.#ensureProcess();
    return sandbox;
  }

  /** Milliseconds the interpreter process took to boot Pyodide, last start. */
  get startupMs(): number {
    return this.#startupMs;
  }

  /** How many times the interpreter was restarted after dying (crash, hang, memory). */
  get restarts(): number {
    return this.#restarts;
  }

  async createAgent(agentId: string, context: AgentContext): Promise<void> {
    if (this.#disposed) throw new ReplDisposedError();
    if (this.#agents.has(agentId)) throw new AgentExistsError(agentId);
    checkContext(agentId, context);
    const record: AgentRecord = {
      agentId,
      context,
      contextTexts: typeof context === 'string' ? { '': context } : context,
      contextJson: this.#jsonOf(context),
      process: null,
      contextId: null,
      creating: null,
      running: false,
      lostNote: null,
    };
    this.#agents.set(agentId, record);
    try {
      await this.#materialize(record);
    } catch (error) {
      this.#agents.delete(agentId);
      throw error;
    }
  }

  /** Runs one code block in the agent's namespace. Model errors come back in the result. */
  async run(agentId: string, code: string, signal?: AbortSignal): Promise<ExecutionResult> {
    if (this.#disposed) throw new ReplDisposedError();
    const record = this.#agents.get(agentId);
    if (!record) throw new UnknownAgentError(agentId);
    if (record.running) throw new AgentBusyError(agentId);
    record.running = true;
    const started = performance.now();
    try {
      const process = await this.#materialize(record);
      return await new Promise<ExecutionResult>((resolve) => {
        const runId = this.#nextRunId++;
        const onAbort = () => {
          process.cancel(runId);
        };
        this.#runs.set(runId, {
          record,
          process,
          started,
          note: record.lostNote,
          resolve,
          cleanup: () => signal?.removeEventListener('abort', onAbort),
        });
        record.lostNote = null;
        process.send({ kind: 'run', runId, agentId, code, timeoutMs: this.limits.timeoutMs });
        if (signal?.aborted) onAbort();
        else signal?.addEventListener('abort', onAbort, { once: true });
      });
    } finally {
      record.running = false;
    }
  }

  /** Contexts are never changed once given (agents keep theirs for restarts): JSON once each. */
  readonly #json = new WeakMap<object, string>();

  #jsonOf(context: AgentContext): string {
    if (typeof context === 'string') return JSON.stringify(context);
    let json = this.#json.get(context);
    if (json === undefined) {
      json = JSON.stringify(context);
      this.#json.set(context, json);
    }
    return json;
  }

  /** Forgets the agent and frees its namespace (a run in flight still finishes). */
  disposeAgent(agentId: string): void {
    const record = this.#agents.get(agentId);
    if (!record) return;
    this.#agents.delete(agentId);
    const process = record.process;
    if (!process) return;
    process.send({ kind: 'dispose-agent', agentId });
    const contextId = record.contextId;
    if (contextId !== null && this.#contexts.get(process)?.release(contextId))
      process.send({ kind: 'forget-context', contextId });
  }

  /** Ends the interpreter process; in-flight runs resolve with an error, later calls reject. */
  async dispose(): Promise<void> {
    if (this.#disposed) return;
    this.#disposed = true;
    const process = this.#process ?? (await this.#starting?.catch(() => null)) ?? null;
    if (process?.alive) {
      process.kill('the REPL was disposed');
      await process.closed;
    }
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.dispose();
  }

  #ensureProcess(): Promise<InterpreterProcess> {
    if (this.#disposed) return Promise.reject(new ReplDisposedError());
    if (this.#process?.alive) return Promise.resolve(this.#process);
    this.#starting ??= this.#startProcess().finally(() => {
      this.#starting = null;
    });
    return this.#starting;
  }

  async #startProcess(): Promise<InterpreterProcess> {
    let started: InterpreterProcess | null = null;
    const process = await InterpreterProcess.start(
      {
        nodePath: this.#nodePath,
        maxMemoryBytes: this.limits.maxMemoryBytes,
        maxOutputChars: this.limits.maxOutputChars,
        collectTimeoutMs: this.#collectTimeoutMs,
        hangLimitMs: this.limits.timeoutMs + this.#collectTimeoutMs + this.#hangGraceMs,
      },
      {
        onMessage: (message) => {
          if (started) this.#onMessage(started, message);
        },
        onExit: (reason) => {
          if (started) this.#onExit(started, reason);
        },
      },
    );
    started = process;
    this.#startupMs = process.startupMs;
    this.#process = process;
    this.#creates.set(process, new Map());
    this.#contexts.set(process, new SharedContexts());
    process.watch(() => this.#runs.size > 0);
    if (this.#disposed) process.kill('the REPL was disposed');
    return process;
  }

  async #materialize(record: AgentRecord): Promise<InterpreterProcess> {
    const process = await this.#ensureProcess();
    if (record.process === process) return process;
    record.creating ??= this.#create(process, record).finally(() => {
      record.creating = null;
    });
    return record.creating;
  }

  async #create(process: InterpreterProcess, record: AgentRecord): Promise<InterpreterProcess> {
    const pending = this.#creates.get(process);
    const contexts = this.#contexts.get(process);
    if (!pending || !contexts || !process.alive)
      throw new AgentCreateError(record.agentId, 'the interpreter is not running');
    const { id, load } = contexts.acquire(record.contextJson);
    await new Promise<void>((resolve, reject) => {
      pending.set(record.agentId, { contextId: id, loads: load, resolve, reject });
      process.send({
        kind: 'create',
        agentId: record.agentId,
        contextId: id,
        ...(load ? { context: record.contextJson } : {}),
      });
    });
    record.process = process;
    record.contextId = id;
    return process;
  }

  #onMessage(
    process: InterpreterProcess,
    message: Exclude<InterpreterMessage, { kind: 'ready' | 'pong' | 'fatal' }>,
  ): void {
    switch (message.kind) {
      case 'created': {
        const pending = this.#creates.get(process)?.get(message.agentId);
        this.#creates.get(process)?.delete(message.agentId);
        if (!pending) return;
        if (message.error === null) {
          pending.resolve();
          return;
        }
        const contexts = this.#contexts.get(process);
        if (pending.loads) contexts?.drop(pending.contextId);
        else contexts?.release(pending.contextId);
        pending.reject(new AgentCreateError(message.agentId, message.error));
        return;
      }
      case 'call':
        void this.#onCall(process, message);
        return;
      case 'result':
        this.#onResult(message.runId, message.outcome);
        return;
    }
  }

  async #onCall(
    process: InterpreterProcess,
    message: Extract<InterpreterMessage, { kind: 'call' }>,
  ): Promise<void> {
    const run = this.#runs.get(message.runId);
    const envelope = run
      ? await handleCall(message.op, message.payload, run.record, this.#callbacks, this.#search)
      : { ok: false as const, error: 'this run is no longer in progress' };
    const json = JSON.stringify(
      'value' in envelope ? { ...envelope, value: envelope.value ?? null } : envelope,
    );
    process.send({ kind: 'reply', callId: message.callId, envelope: json });
  }

  #onResult(runId: number, outcome: RunOutcome): void {
    const run = this.#runs.get(runId);
    if (!run) return;
    this.#runs.delete(runId);
    run.cleanup();
    run.resolve(executionResult(outcome, this.limits, run.note, performance.now() - run.started));
  }

  #onExit(process: InterpreterProcess, reason: string): void {
    if (this.#process === process) this.#process = null;
    for (const [agentId, pending] of this.#creates.get(process) ?? []) {
      pending.reject(new AgentCreateError(agentId, reason));
    }
    this.#creates.delete(process);
    this.#contexts.delete(process);
    if (this.#disposed) reason = 'the REPL was disposed';
    else this.#restarts++;
    const lost = `note: the interpreter restarted (${reason}); variables from earlier runs are gone, context is intact`;
    for (const record of this.#agents.values()) {
      if (record.process !== process) continue;
      record.process = null;
      record.lostNote = lost;
    }
    for (const [runId, run] of this.#runs) {
      if (run.process !== process) continue;
      this.#runs.delete(runId);
      run.cleanup();
      run.resolve(interruptedResult(reason, performance.now() - run.started));
      run.record.lostNote = null;
    }
  }
}
