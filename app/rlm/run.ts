// A run: the root agent over a paper set, its children (rlm_query), budgets, cancellation and the
// event log. Agent ids are tree paths ('0', '0.0', '0.1.2') assigned in spawn order; a batched
// call takes its ids in list order before any child starts.
import type { Budgets, CodeBlockPolicy, RunEvent } from '../api/index.ts';
import type { ChatMessage, Completion } from '../models/provider.ts';
import type { ExecutionResult, ReplValue } from '../repl/types.ts';
import { defaultOutputLimit, runAgentLoop, type AgentSpec } from './agent-loop.ts';
import {
  AgentBudgetExceededError,
  ChildrenBudgetExceededError,
  DepthBudgetExceededError,
  RunCanceledError,
  TokenBudgetExceededError,
  WallTimeExceededError,
} from './errors.ts';
import { createLimiter, type CallLimiter } from './call-limiter.ts';
import type { Literal } from './literal.ts';
import { systemPrompt } from './prompts.ts';
import type { RunContext } from './run-context.ts';
import type { RecordedChild, RunOptions, RunOutcome } from './run-options.ts';

export { createLimiter } from './call-limiter.ts';
export type { RecordedChild, RunOptions, RunOutcome } from './run-options.ts';

function errorInfo(error: unknown): { name: string; message: string } {
  return error instanceof Error
    ? { name: error.name, message: error.message }
    : { name: 'Error', message: String(error) };
}

export class RlmRun implements RunContext {
  readonly budgets: Budgets;
  readonly codeBlocks: CodeBlockPolicy;
  readonly outputLimit: number;
  readonly #options: RunOptions;
  readonly #abort = new AbortController();
  readonly #turns = new Map<string, number>();
  readonly #childCount = new Map<string, number>();
  readonly #llmCalls = new Map<string, number>();
  readonly #agents = new Map<string, AgentSpec>();
  /** Each live agent's namespace creation in the REPL, awaited before its code runs. */
  readonly #created = new Map<string, Promise<void>>();
  readonly #limiter: CallLimiter;
  #stopReason: Error | null = null;
  #inputTokens = 0;
  #outputTokens = 0;
  #cost: number | null = null;
  #turnCount = 0;
  readonly #started = Date.now();

  constructor(options: RunOptions) {
    this.#options = options;
    this.budgets = options.budgets;
    this.codeBlocks = options.codeBlocks ?? 'last';
    this.outputLimit = options.outputLimit ?? defaultOutputLimit;
    this.#limiter = options.limiter ?? createLimiter(options.budgets.maxInFlightCalls);
    options.signal?.addEventListener(
      'abort',
      () => {
        this.cancel();
      },
      { once: true },
    );
  }

  get signal(): AbortSignal {
    return this.#abort.signal;
  }

  emit(event: RunEvent): void {
    this.#options.emit(event);
  }

  cancel(reason: Error = new RunCanceledError()): void {
    if (this.#stopReason) return;
    this.#stopReason = reason;
    this.#abort.abort(reason);
  }

  checkAlive(): void {
    if (!this.#stopReason && Date.now() - this.#started > this.budgets.wallTimeMs) {
      this.cancel(new WallTimeExceededError(this.budgets.wallTimeMs));
    }
    if (this.#stopReason) throw this.#stopReason;
  }

  setTurn(agentId: string, turn: number): void {
    this.#turns.set(agentId, turn);
    this.#turnCount++;
  }

  systemPrompt(agent: AgentSpec): string {
    const root = agent.parentId === null;
    const contextDescription =
      typeof agent.context === 'string'
        ? 'a string'
        : `a dict mapping each paper id to its full text, which starts with "### PAPER: <title>" and the abstract`;
    return systemPrompt({
      role: root ? 'root' : 'child',
      style: this.#options.promptStyle ?? 'long',
      policy: this.codeBlocks,
      maxTurns: this.budgets.maxTurns,
      maxChildren: this.budgets.maxChildrenPerCall,
      outputLimit: this.outputLimit,
      canRecurse: agent.depth < this.budgets.maxDepth,
      contextDescription,
      contextShape:
        typeof agent.context === 'string'
          ? ''
          : `It holds ${Object.keys(agent.context).length} papers, keyed by paper id.`,
    }).text;
  }

  async complete(agentId: string, turn: number, messages: ChatMessage[]): Promise<Completion> {
    const signal = this.#abort.signal;
    const completion = await this.#limiter(
      () =>
        this.#options.provider.complete({
          messages,
          agentId,
          turn,
          signal,
          onDelta: (text) => {
            this.emit({ kind: 'model.delta', at: Date.now(), agentId, turn, text });
          },
        }),
      signal,
    );
    this.checkAlive();
    this.#inputTokens += completion.usage.inputTokens;
    this.#outputTokens += completion.usage.outputTokens;
    if (completion.costUsd !== null) this.#cost = (this.#cost ?? 0) + completion.costUsd;
    this.emit({
      kind: 'model.done',
      at: Date.now(),
      agentId,
      turn,
      text: completion.text,
      usage: completion.usage,
      costUsd: completion.costUsd,
      latencyMs: completion.latencyMs,
      finishReason: completion.finishReason,
    });
    const used = this.#inputTokens + this.#outputTokens;
    if (used > this.budgets.maxTokens)
      this.cancel(new TokenBudgetExceededError(used, this.budgets.maxTokens));
    return completion;
  }

  async execute(agentId: string, code: string): Promise<ExecutionResult> {
    await this.#created.get(agentId);
    return this.#options.sandbox.run(this.sandboxKey(agentId), code, this.#abort.signal);
  }

  sandboxKey(agentId: string): string {
    return `${this.#options.runId}/${agentId}`;
  }

  /** Reserves the next child ids of `parentId` (in order) after checking the budgets. */
  #reserveChildren(parentId: string, count: number): string[] {
    const parent = this.#agents.get(parentId);
    if (!parent) throw new Error(`unknown agent ${parentId}`);
    if (parent.depth >= this.budgets.maxDepth)
      throw new DepthBudgetExceededError(parentId, this.budgets.maxDepth);
    if (count > this.budgets.maxChildrenPerCall)
      throw new ChildrenBudgetExceededError(parentId, count, this.budgets.maxChildrenPerCall);
    if (this.#agents.size + count > this.budgets.maxAgents)
      throw new AgentBudgetExceededError(this.budgets.maxAgents);
    const first = this.#childCount.get(parentId) ?? 0;
    this.#childCount.set(parentId, first + count);
    return Array.from({ length: count }, (_, index) => `${parentId}.${first + index}`);
  }

  async #runChild(
    parentId: string,
    childId: string,
    prompt: string,
    context: ReplValue,
  ): Promise<Literal> {
    const parent = this.#agents.get(parentId);
    const text =
      typeof context === 'string' ? context : context === null ? '' : JSON.stringify(context);
    this.emit({
      kind: 'child.call',
      at: Date.now(),
      agentId: parentId,
      turn: this.#turns.get(parentId) ?? 0,
      childId,
      call: 'rlm',
      prompt,
    });
    const recorded = this.#options.recordedChild?.(
      parentId,
      childId,
      this.#turns.get(parentId) ?? 0,
    );
    if (recorded) return this.#replayChild(parentId, childId, recorded);
    try {
      const answer = await this.#runAgent({
        id: childId,
        parentId,
        depth: (parent?.depth ?? 0) + 1,
        prompt,
        context: text,
      });
      this.#childReturned(parentId, childId, answer, null);
      return answer;
    } catch (error) {
      this.#childReturned(parentId, childId, null, errorInfo(error));
      throw error;
    }
  }

  /** A recorded child: its stored events again (at the current time), its stored answer. */
  #replayChild(parentId: string, childId: string, recorded: RecordedChild): Literal {
    for (const event of recorded.events) {
      if (event.kind === 'agent.spawned')
        this.#agents.set(event.agentId, {
          id: event.agentId,
          parentId: event.parentId,
          depth: event.depth,
          prompt: event.prompt,
          context: '',
        });
      this.emit({ ...event, at: Date.now() });
    }
    this.#childReturned(parentId, childId, recorded.answer, recorded.error);
    if (recorded.error) {
      const error = new Error(recorded.error.message);
      error.name = recorded.error.name;
      throw error;
    }
    return recorded.answer;
  }

  #childReturned(
    agentId: string,
    childId: string | null,
    answer: Literal,
    error: { name: string; message: string } | null,
  ): void {
    this.emit({ kind: 'child.returned', at: Date.now(), agentId, childId, answer, error });
  }

  /** rlm_query from agent `parentId`. */
  async rlmQuery(parentId: string, prompt: string, context: ReplValue): Promise<ReplValue> {
    const [childId] = this.#reserveChildren(parentId, 1);
    return await this.#runChild(parentId, childId ?? '', prompt, context);
  }

  /** rlm_query_batched: ids in list order, children in parallel, a failure is a string in its slot. */
  async rlmQueryBatched(
    parentId: string,
    prompts: string[],
    contexts: ReplValue[] | null,
  ): Promise<ReplValue[]> {
    const ids = this.#reserveChildren(parentId, prompts.length);
    const settled = await Promise.allSettled(
      ids.map((childId, index) =>
        this.#runChild(parentId, childId, prompts[index] ?? '', contexts?.[index] ?? null),
      ),
    );
    return settled.map((result) =>
      result.status === 'fulfilled'
        ? result.value
        : `Error: ${errorInfo(result.reason).name}: ${errorInfo(result.reason).message}`,
    );
  }

  async llmQuery(agentId: string, prompt: string): Promise<string> {
    this.checkAlive();
    const turn = this.#turns.get(agentId) ?? 0;
    this.emit({
      kind: 'child.call',
      at: Date.now(),
      agentId,
      turn,
      childId: null,
      call: 'llm',
      prompt,
    });
    // Plain calls are keyed apart from the agent's own turns ('0.1:llm', call n), so a scripted or
    // replayed model answers them from their own list.
    const call = this.#llmCalls.get(agentId) ?? 0;
    this.#llmCalls.set(agentId, call + 1);
    try {
      const completion = await this.complete(`${agentId}:llm`, call, [
        { role: 'user', content: prompt },
      ]);
      this.#childReturned(agentId, null, completion.text, null);
      return completion.text;
    } catch (error) {
      this.#childReturned(agentId, null, null, errorInfo(error));
      throw error;
    }
  }

  async #runAgent(agent: AgentSpec): Promise<Literal> {
    this.checkAlive();
    this.#agents.set(agent.id, agent);
    const contextChars =
      typeof agent.context === 'string'
        ? agent.context.length
        : Object.values(agent.context).reduce((sum, text) => sum + text.length, 0);
    this.emit({
      kind: 'agent.spawned',
      at: Date.now(),
      agentId: agent.id,
      parentId: agent.parentId,
      depth: agent.depth,
      prompt: agent.prompt,
      contextChars,
    });
    const key = this.sandboxKey(agent.id);
    // The namespace is built while the first model call is in flight (the REPL serves every agent
    // in turn, so waiting here put 128 roots' namespaces in front of their first calls); the
    // first execute waits for it, and a failure to create it fails the agent all the same.
    const created = this.#options.sandbox.createAgent(key, agent.context);
    created.catch(() => undefined); // awaited by execute and below; this only marks it handled
    this.#created.set(agent.id, created);
    try {
      const answer = await runAgentLoop(this, agent);
      await created;
      return answer;
    } catch (error) {
      this.emit({
        kind: 'agent.failed',
        at: Date.now(),
        agentId: agent.id,
        error: errorInfo(error),
      });
      throw error;
    } finally {
      this.#created.delete(agent.id);
      await created.then(
        () => this.#options.sandbox.disposeAgent(key),
        () => undefined,
      );
    }
  }

  /** Runs the root agent to the end and emits run.started ... run.finished. */
  async start(): Promise<RunOutcome> {
    const options = this.#options;
    this.emit({
      kind: 'run.started',
      at: this.#started,
      runId: options.runId,
      question: options.question,
      set: options.set,
      papers: Object.keys(options.papers),
      model: options.provider.spec,
      budgets: this.budgets,
      codeBlocks: this.codeBlocks,
      prompts: options.promptStyle ?? 'long',
      ...(options.forkOf ? { forkOf: options.forkOf } : {}),
    });
    const wallTimer = setTimeout(() => {
      this.cancel(new WallTimeExceededError(this.budgets.wallTimeMs));
    }, this.budgets.wallTimeMs);
    let outcome: RunOutcome;
    try {
      const answer = await this.#runAgent({
        id: '0',
        parentId: null,
        depth: 0,
        prompt: options.question,
        context: options.papers,
      });
      outcome = { status: 'done', answer, error: null };
    } catch (error) {
      const reason = this.#stopReason ?? error;
      outcome = {
        status: reason instanceof RunCanceledError ? 'canceled' : 'failed',
        answer: null,
        error: errorInfo(reason),
      };
    } finally {
      clearTimeout(wallTimer);
    }
    this.emit({
      kind: 'run.finished',
      at: Date.now(),
      status: outcome.status,
      answer: outcome.answer,
      agents: this.#agents.size,
      turns: this.#turnCount,
      usage: { inputTokens: this.#inputTokens, outputTokens: this.#outputTokens },
      costUsd: this.#cost,
      durationMs: Date.now() - this.#started,
      error: outcome.error,
    });
    return outcome;
  }
}
