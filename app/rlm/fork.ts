// Forking a run at one agent's turn. The fork path is the forked agent and its ancestors. Before
// the fork point everything is rebuilt from the original log: path agents re-run their earlier
// turns' code (so their REPL state is real) with the recorded responses, and every child off the
// path is not run again (its recorded events and answer come back, see RlmRun.recordedChild). At
// the fork point the forked agent gets the edited code or response; from there on, and in each
// ancestor after the turn that spawned the path child, the model runs live.
import type { CodeBlockPolicy, RunEvent } from '../api/index.ts';
import type { Completion, CompletionRequest, Provider } from '../models/provider.ts';
import type { Literal } from './literal.ts';
import type { RecordedChild } from './run.ts';

export interface ForkPoint {
  runId: string;
  agentId: string;
  turn: number;
  /** Replaces the code the turn ran (the block its code-block policy runs). */
  code?: string | undefined;
  /** Replaces the whole response of the turn (code and prose). */
  response?: string | undefined;
}

export class ForkPointError extends Error {
  override readonly name = 'ForkPointError';
  constructor(runId: string, detail: string) {
    super(`Cannot fork run '${runId}': ${detail}`);
  }
}

const fence = /```[ \t]*(repl|python|py)?[ \t]*\r?\n([\s\S]*?)```/g;

/** The response with the block its policy runs replaced by `code` (appended when it had none). */
export function replaceCode(response: string, code: string, policy: CodeBlockPolicy): string {
  const block = '```repl\n' + code.replace(/\n$/, '') + '\n```';
  const matches = [...response.matchAll(fence)];
  if (matches.length === 0) return `${response.trimEnd()}\n${block}`;
  if (policy === 'all') {
    let first = true;
    return response.replace(fence, () => {
      const text = first ? block : '';
      first = false;
      return text;
    });
  }
  const target = policy === 'first' ? matches[0] : matches.at(-1);
  const start = target?.index ?? 0;
  return response.slice(0, start) + block + response.slice(start + (target?.[0].length ?? 0));
}

function isDescendant(id: string, ancestor: string): boolean {
  return id === ancestor || id.startsWith(`${ancestor}.`);
}

export class ForkPlan {
  readonly point: ForkPoint;
  readonly started: Extract<RunEvent, { kind: 'run.started' }>;
  readonly #events: readonly RunEvent[];
  /** agent -> first turn whose code is new (its model runs live from there). */
  readonly #liveFrom = new Map<string, number>();
  readonly #responses = new Map<string, string>();
  readonly #llmAnswers = new Map<string, string>();
  readonly #lastTurn = new Map<string, number>();
  readonly #edited: string;

  constructor(events: readonly RunEvent[], point: ForkPoint) {
    this.point = point;
    this.#events = events;
    const started = events.find((event) => event.kind === 'run.started');
    if (!started) throw new ForkPointError(point.runId, 'its log has no run.started event');
    this.started = started;
    for (const event of events) {
      if (event.kind !== 'model.done') continue;
      const key = `${event.agentId}#${event.turn}`;
      if (event.agentId.endsWith(':llm')) this.#llmAnswers.set(key, event.text);
      else this.#responses.set(key, event.text);
    }
    const original = this.#responses.get(`${point.agentId}#${point.turn}`);
    if (original === undefined)
      throw new ForkPointError(
        point.runId,
        `agent ${point.agentId} has no recorded turn ${point.turn + 1}; pick a turn the run reached`,
      );
    if (point.code === undefined && point.response === undefined)
      throw new ForkPointError(point.runId, 'give the edited code or the edited response');
    this.#edited = point.response ?? replaceCode(original, point.code ?? '', started.codeBlocks);
    this.#liveFrom.set(point.agentId, point.turn);
    // Each ancestor goes live after the turn in which it spawned the next agent of the path.
    let child = point.agentId;
    while (child.includes('.')) {
      const parent = child.slice(0, child.lastIndexOf('.'));
      const call = events.find(
        (event) =>
          event.kind === 'child.call' && event.agentId === parent && event.childId === child,
      );
      if (call?.kind !== 'child.call')
        throw new ForkPointError(point.runId, `no recorded call from ${parent} spawned ${child}`);
      this.#liveFrom.set(parent, call.turn + 1);
      child = parent;
    }
  }

  #onPath(agentId: string): boolean {
    return this.#liveFrom.has(agentId);
  }

  /** Agents off the path run live from their first turn (they are new, or they are replayed whole). */
  liveFrom(agentId: string): number {
    return this.#liveFrom.get(agentId) ?? 0;
  }

  /** The response a path agent gets at `turn` without asking the model, if any. */
  scripted(agentId: string, turn: number): string | undefined {
    if (agentId.endsWith(':llm')) {
      const owner = agentId.slice(0, -':llm'.length);
      const last = this.#lastTurn.get(owner) ?? 0;
      const recordedCode =
        this.#onPath(owner) &&
        (last < this.liveFrom(owner) ||
          (owner !== this.point.agentId && last === this.liveFrom(owner) - 1));
      return recordedCode ? this.#llmAnswers.get(`${agentId}#${turn}`) : undefined;
    }
    this.#lastTurn.set(agentId, turn);
    if (!this.#onPath(agentId)) return undefined;
    if (agentId === this.point.agentId && turn === this.point.turn) return this.#edited;
    return turn < this.liveFrom(agentId) ? this.#responses.get(`${agentId}#${turn}`) : undefined;
  }

  /** A child off the path called in a turn whose code is recorded: not run again. */
  recordedChild(parentId: string, childId: string, parentTurn: number): RecordedChild | null {
    if (!this.#onPath(parentId) || this.#onPath(childId)) return null;
    const recordedTurn =
      parentTurn < this.liveFrom(parentId) ||
      (parentId !== this.point.agentId && parentTurn === this.liveFrom(parentId) - 1);
    if (!recordedTurn) return null;
    const returned = this.#events.find(
      (event) =>
        event.kind === 'child.returned' && event.agentId === parentId && event.childId === childId,
    );
    if (returned?.kind !== 'child.returned') return null;
    return {
      answer: returned.answer as Literal,
      error: returned.error,
      // Replayed, not spent again: the fork's totals and its tree count no tokens for them.
      events: this.#events
        .filter(
          (event) =>
            event.kind !== 'run.started' &&
            event.kind !== 'run.finished' &&
            'agentId' in event &&
            isDescendant(event.agentId.replace(/:llm$/, ''), childId),
        )
        .map((event) =>
          event.kind === 'model.done'
            ? {
                ...event,
                usage: { inputTokens: 0, outputTokens: 0 },
                costUsd: event.costUsd === null ? null : 0,
              }
            : event,
        ),
    };
  }
}

/** The fork's model: recorded and edited responses where the plan has them, else the live model. */
export class ForkProvider implements Provider {
  readonly spec: string;
  readonly #plan: ForkPlan;
  readonly #live: Provider;

  constructor(plan: ForkPlan, live: Provider) {
    this.#plan = plan;
    this.#live = live;
    this.spec = live.spec;
  }

  complete(request: CompletionRequest): Promise<Completion> {
    const text = this.#plan.scripted(request.agentId, request.turn);
    if (text === undefined) return this.#live.complete(request);
    request.onDelta?.(text);
    return Promise.resolve({
      text,
      usage: { inputTokens: 0, outputTokens: 0 },
      costUsd: 0,
      model: 'recorded',
      finishReason: 'stop',
      latencyMs: 0,
    });
  }
}
