// Starts runs over paper sets: builds the REPL context from app/papers, the model from its spec,
// shares one sandbox among all runs (routing rlm_query callbacks by run), persists every event
// and fans it out to listeners. The composition roots (CLI, host) own one RunService each.
import { randomUUID } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { Budgets, parsePayload, type CodeBlockPolicy, type RunEvent } from '../api/index.ts';
import type { Provider } from '../models/provider.ts';
import type { PaperLibrary } from '../papers/index.ts';
import type { ReplCallbacks } from '../repl/types.ts';
import type { RunStore } from '../store/index.ts';
import type { PromptStyle } from './prompts.ts';
import type { AgentSandbox } from './run-context.ts';
import { ForkPlan, ForkPointError, ForkProvider, type ForkPoint } from './fork.ts';
import { RlmRun, type RunOptions, type RunOutcome } from './run.ts';

export interface DisposableSandbox extends AgentSandbox {
  dispose(): Promise<void>;
}

export type SandboxFactory = (callbacks: ReplCallbacks) => Promise<DisposableSandbox>;

export interface StartRunRequest {
  set: string;
  question: string;
  model: string;
  budgets?: Partial<Budgets>;
  codeBlocks?: CodeBlockPolicy;
  promptStyle?: PromptStyle;
  /** Restrict the context to these papers of the set. */
  paperIds?: string[];
}

export interface StartedRun {
  runId: string;
  finished: Promise<RunOutcome>;
  cancel(): void;
}

export class UnknownRunAgentError extends Error {
  override readonly name = 'UnknownRunAgentError';
  constructor(key: string) {
    super(`The REPL called back for '${key}', which belongs to no active run`);
  }
}

function splitKey(key: string): { runId: string; agentId: string } {
  const slash = key.lastIndexOf('/');
  return { runId: key.slice(0, slash), agentId: key.slice(slash + 1) };
}

export class RunService {
  readonly #papers: PaperLibrary;
  readonly #store: RunStore;
  readonly #providers: (spec: string) => Provider | Promise<Provider>;
  readonly #sandboxFactory: SandboxFactory;
  /**
   * Interpreters, started as load asks for them: each runs one agent's code at a time, so more
   * concurrent runs than one interpreter keeps busy spread over a second (one per core, up to
   * `interpreters`). A run stays in the interpreter it started in (its agents share it).
   */
  readonly #interpreters: { sandbox: Promise<DisposableSandbox>; ready: boolean; runs: number }[] =
    [];
  readonly #maxInterpreters: number;
  readonly #active = new Map<string, RlmRun>();
  /**
   * Contexts built in this event-loop turn, by set and papers: runs started together (an eval
   * batch, 128 roots) share one object, read and sent to the REPL once. Dropped after the turn,
   * so a run started later sees the set as it is then.
   */
  readonly #contexts = new Map<string, Record<string, string>>();
  readonly #listeners = new Set<(runId: string, event: RunEvent, seq: number) => void>();
  /**
   * Code blocks sent to the REPL and not back yet, less those waiting on a child or model call
   * (their agent waits on the model like the others). While any is left, the store holds its
   * writes back: each block's result is on some agent's way to its next request, and a write then
   * delays them all (see RunStore.holdWritesWhile).
   */
  #executing = 0;
  readonly #releaseHold: () => void;

  constructor(options: {
    papers: PaperLibrary;
    store: RunStore;
    providers: (spec: string) => Provider | Promise<Provider>;
    sandbox: SandboxFactory;
    /** At most this many interpreter processes (default: one per core, at most 2). */
    interpreters?: number;
  }) {
    this.#maxInterpreters = Math.max(
      1,
      options.interpreters ?? Math.min(2, availableParallelism()),
    );
    this.#papers = options.papers;
    this.#store = options.store;
    this.#providers = options.providers;
    this.#sandboxFactory = options.sandbox;
    this.#releaseHold = this.#store.holdWritesWhile(() => this.#executing > 0);
  }

  /** Every event of every run; `seq` is its index in the run's stored log (runs.events order). */
  onEvent(listener: (runId: string, event: RunEvent, seq: number) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #run(key: string): { run: RlmRun; agentId: string } {
    const { runId, agentId } = splitKey(key);
    const run = this.#active.get(runId);
    if (!run) throw new UnknownRunAgentError(key);
    return { run, agentId };
  }

  #startInterpreter(): void {
    const entry = { sandbox: this.#createSandbox(), ready: false, runs: 0 };
    this.#interpreters.push(entry);
    entry.sandbox.then(
      () => {
        entry.ready = true;
      },
      () => {
        // A failed start is reported to the runs that wait on it; later runs try the others.
        this.#interpreters.splice(this.#interpreters.indexOf(entry), 1);
      },
    );
  }

  /** The least busy started interpreter; a new one starts in the background when all are busy. */
  #sandboxFor(): { sandbox: Promise<DisposableSandbox>; release: () => void } {
    if (this.#interpreters.length === 0) this.#startInterpreter();
    const ready = this.#interpreters.filter((entry) => entry.ready);
    const pool = ready.length > 0 ? ready : this.#interpreters;
    const entry = pool.reduce((best, next) => (next.runs < best.runs ? next : best));
    if (entry.runs > 0 && this.#interpreters.length < this.#maxInterpreters) {
      this.#startInterpreter();
    }
    entry.runs++;
    return {
      sandbox: entry.sandbox,
      release: () => {
        entry.runs--;
      },
    };
  }

  #createSandbox(): Promise<DisposableSandbox> {
    return this.#sandboxFactory({
      rlmQuery: (key, prompt, context) => {
        const { run, agentId } = this.#run(key);
        return this.#waiting(run.rlmQuery(agentId, prompt, context));
      },
      rlmQueryBatched: (key, prompts, contexts) => {
        const { run, agentId } = this.#run(key);
        return this.#waiting(run.rlmQueryBatched(agentId, prompts, contexts));
      },
      llmQuery: (key, prompt) => {
        const { run, agentId } = this.#run(key);
        return this.#waiting(run.llmQuery(agentId, prompt));
      },
      llmQueryBatched: (key, prompts) => {
        const { run, agentId } = this.#run(key);
        return this.#waiting(Promise.all(prompts.map((prompt) => run.llmQuery(agentId, prompt))));
      },
    });
  }

  /** A code block is not executing while it waits on `call`. */
  async #waiting<T>(call: Promise<T>): Promise<T> {
    this.#executing--;
    try {
      return await call;
    } finally {
      this.#executing++;
    }
  }

  /** The sandbox as a run uses it, its code blocks counted while they are in the REPL. */
  #counted(sandbox: AgentSandbox): AgentSandbox {
    return {
      createAgent: (key, context) => sandbox.createAgent(key, context),
      disposeAgent: (key) => sandbox.disposeAgent(key),
      run: async (key, code, signal) => {
        this.#executing++;
        try {
          return await sandbox.run(key, code, signal);
        } finally {
          this.#executing--;
        }
      },
    };
  }

  /** Starts a run; resolves once it is recorded and running (its end is `finished`). */
  async start(request: StartRunRequest): Promise<StartedRun> {
    return this.#launch(request, await this.#providers(request.model), {});
  }

  /**
   * Forks a stored run at an agent's turn (see fork.ts): a new run, linked to its parent, with the
   * same question, papers, budgets and policy; `model` is the live model after the fork point
   * (default: the parent's).
   */
  async fork(point: ForkPoint & { model?: string | undefined }): Promise<StartedRun> {
    const parent = this.#store.get(point.runId);
    const plan = new ForkPlan(this.#store.events(point.runId), point);
    const { started } = plan;
    if (started.papers.length === 0)
      throw new ForkPointError(
        point.runId,
        `it was ${parent.source === 'live' ? 'run' : 'imported'} without a paper set, so its REPL context cannot be rebuilt`,
      );
    const model = point.model ?? started.model;
    return this.#launch(
      {
        set: started.set,
        question: started.question,
        model,
        budgets: started.budgets,
        codeBlocks: started.codeBlocks,
        ...(started.prompts === 'short' || started.prompts === 'long'
          ? { promptStyle: started.prompts }
          : {}),
        paperIds: started.papers,
      },
      new ForkProvider(plan, await this.#providers(model)),
      {
        forkOf: { runId: point.runId, agentId: point.agentId, turn: point.turn },
        recordedChild: (parentId, childId, turn) => plan.recordedChild(parentId, childId, turn),
      },
    );
  }

  async #launch(
    request: StartRunRequest,
    provider: Provider,
    extra: Pick<RunOptions, 'forkOf' | 'recordedChild'>,
  ): Promise<StartedRun> {
    const budgets = parsePayload(Budgets, request.budgets ?? {}, 'run budgets');
    const papers = this.#contextOf(request.set, request.paperIds);
    const lease = this.#sandboxFor();
    let sandbox: DisposableSandbox;
    try {
      sandbox = await lease.sandbox;
    } catch (error) {
      lease.release();
      throw error;
    }
    const runId = randomUUID();
    const writer = this.#store.writer({
      id: runId,
      question: request.question,
      set: request.set,
      model: request.model,
      ...(extra.forkOf ? { parentRunId: extra.forkOf.runId } : {}),
    });
    const run = new RlmRun({
      runId,
      question: request.question,
      set: request.set,
      papers,
      provider,
      sandbox: this.#counted(sandbox),
      budgets,
      ...(request.codeBlocks ? { codeBlocks: request.codeBlocks } : {}),
      ...(request.promptStyle ? { promptStyle: request.promptStyle } : {}),
      ...extra,
      emit: (event) => {
        const seq = writer.append(event);
        for (const listener of this.#listeners) listener(runId, event, seq);
      },
    });
    this.#active.set(runId, run);
    const finished = run.start().finally(async () => {
      lease.release();
      try {
        await writer.flushed();
      } finally {
        this.#active.delete(runId);
      }
    });
    return {
      runId,
      finished,
      cancel: () => {
        run.cancel();
      },
    };
  }

  #contextOf(set: string, paperIds: string[] | undefined): Record<string, string> {
    const key = JSON.stringify([set, paperIds ?? null]);
    let papers = this.#contexts.get(key);
    if (!papers) {
      if (this.#contexts.size === 0)
        setImmediate(() => {
          this.#contexts.clear();
        });
      const texts = this.#papers
        .texts(set)
        .filter((paper) => !paperIds || paperIds.includes(paper.id));
      papers = Object.freeze(Object.fromEntries(texts.map((paper) => [paper.id, paper.context])));
      this.#contexts.set(key, papers);
    }
    return papers;
  }

  isActive(runId: string): boolean {
    return this.#active.has(runId);
  }

  /** Starts the interpreters now, so a run's latency is its own (batch evals time runs). */
  async warm(): Promise<void> {
    while (this.#interpreters.length < this.#maxInterpreters) this.#startInterpreter();
    await Promise.all(this.#interpreters.map((entry) => entry.sandbox));
  }

  cancel(runId: string): boolean {
    const run = this.#active.get(runId);
    run?.cancel();
    return run !== undefined;
  }

  async dispose(): Promise<void> {
    this.#releaseHold();
    for (const run of this.#active.values()) run.cancel();
    const interpreters = this.#interpreters.splice(0);
    await Promise.all(
      interpreters.map(async (entry) => {
        await (await entry.sandbox).dispose();
      }),
    );
  }
}
