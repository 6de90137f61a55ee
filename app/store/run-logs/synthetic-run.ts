// A synthetic run of any size (default 512 agents and 5,000 turns), deterministic for a seed: the
// UI benchmark's stored run and its live stream. Agents form a tree by batched rlm_query calls
// (2 to 8 children each, breadth first); every agent has at least one turn; about 2% fail. Times
// advance like a real run (model 0.2-2 s, code 5-100 ms), children of one call one after another.
import { randomUUID } from 'node:crypto';
import { Budgets, type RunEvent } from '../../api/index.ts';
import type { RunStore } from '../index.ts';
import { RunBuilder } from './run-builder.ts';
import { mulberry32 } from '../../random/mulberry32.ts';

export interface SyntheticRunOptions {
  agents?: number;
  turns?: number;
  seed?: number;
  startAt?: number;
  runId?: string;
}

export class SyntheticRunSizeError extends Error {
  override readonly name = 'SyntheticRunSizeError';
  constructor(agents: number, turns: number) {
    super(
      `A synthetic run needs 1 to 10,000 agents and 1 to 100 turns per agent (asked: ${agents} agents, ${turns} turns)`,
    );
  }
}

const words = [
  'evidence',
  'citation',
  'PDF',
  'parser',
  'corpus',
  'section',
  'abstract',
  'table',
  'LaTeX',
  'span',
];

export function syntheticRunEvents(options: SyntheticRunOptions = {}): RunEvent[] {
  const agents = options.agents ?? 512;
  const turns = options.turns ?? 5000;
  if (
    !Number.isInteger(agents) ||
    agents < 1 ||
    agents > 10_000 ||
    turns < agents ||
    turns > agents * 100
  )
    throw new SyntheticRunSizeError(agents, turns);
  return new SyntheticRun(options, agents, turns).events();
}

interface AgentResult {
  answer: unknown;
  failed: boolean;
}

/**
 * One synthetic run, drawn from one seeded sequence. Invariant: the numbers are drawn in the same
 * order as the run's events are written (the tree, the turn counts, then depth first through the
 * agents), so a seed always gives the same run.
 */
class SyntheticRun {
  readonly #random: () => number;
  /** Each agent's children, breadth first: each parent gets 2-8 until there are enough agents. */
  readonly #children = new Map<string, string[]>([['0', []]]);
  readonly #order = ['0'];
  readonly #turnCount: Map<string, number>;
  readonly #b: RunBuilder;

  constructor(options: SyntheticRunOptions, agents: number, turns: number) {
    this.#random = mulberry32(options.seed ?? 1);
    for (let next = 0; this.#order.length < agents; next++) {
      const parent = this.#order[next] ?? '0';
      const count = Math.min(agents - this.#order.length, 2 + Math.floor(this.#random() * 7));
      for (let index = 0; index < count; index++) {
        const id = `${parent}.${index}`;
        this.#children.get(parent)?.push(id);
        this.#children.set(id, []);
        this.#order.push(id);
      }
    }
    // Turns: one each, the rest spread at random (at most 100 per agent, the turn budget's cap).
    this.#turnCount = new Map(this.#order.map((id) => [id, 1]));
    for (let left = turns - agents; left > 0;) {
      const id = this.#pick(this.#order);
      const now = this.#turnCount.get(id) ?? 1;
      if (now >= 100) continue;
      this.#turnCount.set(id, now + 1);
      left--;
    }
    const depth = Math.max(...this.#order.map((id) => id.split('.').length - 1));
    this.#b = new RunBuilder(options.startAt ?? Date.UTC(2026, 0, 1), {
      runId: options.runId ?? 'synthetic',
      question: `Synthetic run: ${agents} agents, ${turns} turns. Which passages support the claim?`,
      set: 'synthetic',
      papers: [],
      model: 'synthetic',
      budgets: Budgets.parse({
        maxTurns: 100,
        maxDepth: Math.min(10, depth),
        maxAgents: agents,
        maxTokens: 1e12,
      }),
      codeBlocks: 'last',
      prompts: 'long',
    });
  }

  events(): RunEvent[] {
    const root = this.#agent('0', null, 'Which passages support the claim?');
    return this.#b.finish({ status: 'done', answer: root.answer, error: null });
  }

  #pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.#random() * items.length)] as T;
  }

  /** One agent and, depth first, its subtree: spawned, its turns, then its answer or failure. */
  #agent(id: string, parentId: string | null, prompt: string): AgentResult {
    const b = this.#b;
    b.push({
      kind: 'agent.spawned',
      at: b.at(),
      agentId: id,
      parentId,
      depth: id.split('.').length - 1,
      prompt,
      contextChars: 2000 + Math.floor(this.#random() * 50_000),
    });
    const own = this.#turnCount.get(id) ?? 1;
    const kids = this.#children.get(id) ?? [];
    const spawnTurn = kids.length > 0 ? Math.floor(this.#random() * own) : -1;
    const failed = id !== '0' && this.#random() < 0.02;
    for (let turn = 0; turn < own; turn++) {
      this.#turn(id, prompt, turn, turn === own - 1, turn === spawnTurn ? kids : null);
    }
    if (failed) {
      b.push({
        kind: 'agent.failed',
        at: b.at(),
        agentId: id,
        error: { name: 'TurnBudgetExceededError', message: `agent ${id} used its turns` },
      });
      return { answer: null, failed };
    }
    const answer = [`${id}: a verbatim span about ${this.#pick(words)}`];
    b.push({
      kind: 'final.answer',
      at: b.at(),
      agentId: id,
      turn: own - 1,
      answer,
      via: 'FINAL_VAR',
    });
    return { answer, failed };
  }

  /** One turn: the prompt, the model's answer, its code, and (on the spawn turn) the children. */
  #turn(id: string, prompt: string, turn: number, last: boolean, kids: string[] | null): void {
    const b = this.#b;
    const start = b.at();
    b.push({
      kind: 'turn.started',
      at: start,
      agentId: id,
      turn,
      messages: [
        { role: 'system', content: 'You are an RLM.' },
        { role: 'user', content: `${prompt}\n\nTurn ${turn + 1} of 100.` },
      ],
    });
    const word = this.#pick(words);
    const code = kids
      ? `answers = rlm_query_batched([${kids.map((kid) => `'about ${word} (${kid})'`).join(', ')}])\nprint(answers)`
      : last
        ? `FINAL_VAR(found)`
        : `found = search(context, '${word}')\nprint(len(found))`;
    const text = `Step ${turn + 1}: look for ${word}.\n\`\`\`repl\n${code}\n\`\`\``;
    const input = 800 + Math.floor(this.#random() * 4000);
    const output = 20 + Math.floor(text.length / 4);
    b.push({
      kind: 'model.done',
      at: b.at(start + 200 + this.#random() * 1800),
      agentId: id,
      turn,
      text,
      usage: { inputTokens: input, outputTokens: output },
      costUsd: (input * 0.15 + output * 0.6) / 1e6,
      latencyMs: 200 + this.#random() * 1800,
      finishReason: 'stop',
    });
    b.push({ kind: 'code.started', at: b.at(), agentId: id, turn, block: 0, code });
    let stdout = `${1 + Math.floor(this.#random() * 9)}\n`;
    if (kids) stdout = `${JSON.stringify(this.#spawn(id, turn, word, kids)).slice(0, 400)}\n`;
    const durationMs = 5 + this.#random() * 95;
    b.push({
      kind: 'repl.output',
      at: b.at(b.at() + durationMs),
      agentId: id,
      turn,
      block: 0,
      stdout,
      stderr: '',
      error: null,
      durationMs,
      variables: [{ name: 'found', type: 'list', repr: `['a ${word} span']` }],
    });
  }

  /** A batched rlm_query: every call first, then each child run to its end, one after another. */
  #spawn(id: string, turn: number, word: string, kids: string[]): unknown[] {
    const b = this.#b;
    for (const kid of kids) {
      const prompt = `about ${word} (${kid})`;
      b.push({
        kind: 'child.call',
        at: b.at(),
        agentId: id,
        turn,
        childId: kid,
        call: 'rlm',
        prompt,
      });
    }
    const answers: unknown[] = [];
    for (const kid of kids) {
      const result = this.#agent(kid, id, `about ${word} (${kid})`);
      answers.push(result.answer);
      b.push({
        kind: 'child.returned',
        at: b.at(),
        agentId: id,
        childId: kid,
        answer: result.failed ? null : result.answer,
        error: result.failed
          ? { name: 'TurnBudgetExceededError', message: `agent ${kid} used its turns` }
          : null,
      });
    }
    return answers;
  }
}

/** Stores a synthetic run (source 'synthetic'); returns its id and number of events. */
export function storeSyntheticRun(
  store: RunStore,
  options: SyntheticRunOptions = {},
): { runId: string; events: number } {
  const runId = options.runId ?? randomUUID();
  const events = syntheticRunEvents({ ...options, runId });
  const started = events[0];
  store.insertRun(
    {
      id: runId,
      question: started?.kind === 'run.started' ? started.question : '',
      set: 'synthetic',
      model: 'synthetic',
      source: 'synthetic',
      createdAt: started?.at ?? 0,
    },
    events,
  );
  return { runId, events: events.length };
}

/**
 * Plays a synthetic run as if it were live: its events at `eventsPerSecond` (stamped with the
 * current time), written through a run writer and handed to `emit` as they go.
 */
export function streamSyntheticRun(
  store: RunStore,
  emit: (runId: string, event: RunEvent, seq: number) => void,
  options: SyntheticRunOptions & { eventsPerSecond?: number; signal?: AbortSignal } = {},
): { runId: string; events: number; finished: Promise<void> } {
  const runId = options.runId ?? randomUUID();
  const events = syntheticRunEvents({ ...options, runId });
  const started = events[0];
  const writer = store.writer({
    id: runId,
    question: started?.kind === 'run.started' ? started.question : '',
    set: 'synthetic',
    model: 'synthetic',
    source: 'synthetic',
  });
  const rate = options.eventsPerSecond ?? 100;
  const tickMs = 10;
  let sent = 0;
  const begun = performance.now();
  const finished = new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      if (options.signal?.aborted) {
        const last = events.at(-1);
        if (last?.kind === 'run.finished') {
          const canceled: RunEvent = {
            ...last,
            at: Date.now(),
            status: 'canceled',
            answer: null,
            error: { name: 'RunCanceledError', message: 'the synthetic run was canceled' },
          };
          emit(runId, canceled, writer.append(canceled));
        }
        clearInterval(timer);
        writer.flush();
        resolve();
        return;
      }
      const due = Math.min(
        events.length,
        Math.floor(((performance.now() - begun) / 1000) * rate) + 1,
      );
      for (const next of events.slice(sent, due)) {
        const event = { ...next, at: Date.now() };
        emit(runId, event, writer.append(event));
      }
      sent = Math.max(sent, due);
      if (sent >= events.length) {
        clearInterval(timer);
        writer.flush();
        resolve();
      }
    }, tickMs);
  });
  return { runId, events: events.length, finished };
}
