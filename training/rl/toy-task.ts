// The toy task (`baseModel: 'toy:bigram'`): a trainer demo and test bed that needs no model. The
// policy is a bigram table over characters with exact gradients, the first response character
// conditioned on the prompt's last one; the adapter is a delta on the base table, so the reference
// policy (adapter off) is the base table. Questions: after 'x' answer 'a', after 'y' answer 'b';
// each rollout's root also spawns one child, whose turn inherits the root's advantage.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Budgets, type RunEvent } from '../../app/api/index.ts';
import type { ScoredTurns, TokenizedTurn, TrainablePolicy } from './policy.ts';
import type { ChatMessage } from './trajectory.ts';

export class TablePolicy implements TrainablePolicy {
  readonly vocabulary: string;
  readonly base: Float64Array[];
  delta: Float64Array[];
  #grad: Float64Array[];

  constructor(vocabulary: string) {
    this.vocabulary = vocabulary;
    const rows = () =>
      Array.from({ length: vocabulary.length }, () => new Float64Array(vocabulary.length));
    this.base = rows();
    this.delta = rows();
    this.#grad = rows();
  }

  id(char: string): number {
    const index = this.vocabulary.indexOf(char);
    if (index < 0) throw new Error(`'${char}' is not in the vocabulary`);
    return index;
  }

  encodeTurn(messages: readonly ChatMessage[], response: string): TokenizedTurn {
    const last = messages.at(-1)?.content ?? '';
    return {
      prompt: [this.id(last.at(-1) ?? '')],
      response: Array.from(response, (c) => this.id(c)),
    };
  }

  /** The distribution after `context` with the adapter on (off: `reference`), at `temperature`. */
  probabilities(context: number, reference = false, temperature = 1): number[] {
    const logits = this.#logits(context, reference).map((logit) => logit / temperature);
    const max = Math.max(...logits);
    const exp = logits.map((l) => Math.exp(l - max));
    const sum = exp.reduce((s, e) => s + e, 0);
    return exp.map((e) => e / sum);
  }

  sample(context: number, seed: number, temperature = 1): number {
    const u = ((Math.imul(seed ^ 0x5bd1e995, 0x27d4eb2d) >>> 0) % 1_000_003) / 1_000_003;
    let acc = 0;
    const p = this.probabilities(context, false, temperature);
    for (let i = 0; i < p.length; i++) {
      acc += p[i] ?? 0;
      if (u < acc) return i;
    }
    return p.length - 1;
  }

  score(
    turns: readonly TokenizedTurn[],
    options: { reference: boolean; grad: boolean; temperature?: number },
  ): Promise<ScoredTurns> {
    const temperature = options.temperature ?? 1;
    let entropy = 0;
    let positions = 0;
    const contexts: number[][] = [];
    const logp = turns.map((turn) => {
      const out = new Float64Array(turn.response.length);
      let context = turn.prompt.at(-1) ?? 0;
      const seen: number[] = [];
      turn.response.forEach((token, t) => {
        const p = this.probabilities(context, options.reference, temperature);
        out[t] = Math.log(p[token] ?? 0);
        entropy -= p.reduce((s, q) => s + (q > 0 ? q * Math.log(q) : 0), 0);
        positions++;
        seen.push(context);
        context = token;
      });
      contexts.push(seen);
      return out;
    });
    const backward = (gradLogp: readonly Float64Array[]): Promise<void> => {
      if (!options.grad) return Promise.reject(new Error('scored without grad'));
      turns.forEach((turn, i) => {
        turn.response.forEach((token, t) => {
          const context = contexts[i]?.[t] ?? 0;
          const g = gradLogp[i]?.[t] ?? 0;
          const p = this.probabilities(context, false, temperature);
          const row = this.#grad[context];
          if (!row) return;
          // With p = softmax(logit / T): d logp(token) / d logit_j = (1[j = token] - p_j) / T
          for (let j = 0; j < row.length; j++)
            row[j] = (row[j] ?? 0) + (g * ((j === token ? 1 : 0) - (p[j] ?? 0))) / temperature;
        });
      });
      return Promise.resolve();
    };
    return Promise.resolve({
      logp,
      entropy: positions === 0 ? Number.NaN : entropy / positions,
      backward,
    });
  }

  step(options: { learningRate: number; maxGradNorm: number }): Promise<{ gradNorm: number }> {
    const norm = Math.sqrt(
      this.#grad.reduce((s, row) => s + row.reduce((r, g) => r + g * g, 0), 0),
    );
    const scale = norm > options.maxGradNorm ? options.maxGradNorm / norm : 1;
    this.#grad.forEach((row, i) => {
      const delta = this.delta[i];
      if (!delta) return;
      for (let j = 0; j < row.length; j++)
        delta[j] = (delta[j] ?? 0) - options.learningRate * scale * (row[j] ?? 0);
      row.fill(0);
    });
    return Promise.resolve({ gradNorm: norm });
  }

  async saveCheckpoint(dir: string): Promise<void> {
    await mkdir(dir, { recursive: true });
    await writeFile(
      join(dir, 'delta.json'),
      JSON.stringify(this.delta.map((row) => Array.from(row))),
    );
  }

  async loadCheckpoint(dir: string): Promise<void> {
    const rows = JSON.parse(await readFile(join(dir, 'delta.json'), 'utf8')) as number[][];
    this.delta = rows.map((row) => Float64Array.from(row));
  }

  #logits(context: number, reference: boolean): number[] {
    const base = this.base[context] ?? new Float64Array();
    const delta = this.delta[context] ?? new Float64Array();
    return Array.from(base, (b, j) => b + (reference ? 0 : (delta[j] ?? 0)));
  }
}

/**
 * A run log of a root that answers with one character and, optionally, a child it calls that does
 * too. With a runId it opens with run.started, as a stored run does (the toy job stores them).
 */
export function toyRun(
  prompt: string,
  answer: string,
  child?: { prompt: string; answer: string },
  options: { runId?: string; at?: number } = {},
): RunEvent[] {
  const at = options.at ?? 0;
  const started: RunEvent[] = options.runId
    ? [
        {
          kind: 'run.started',
          at,
          runId: options.runId,
          question: prompt,
          set: 'toy',
          papers: [],
          model: TOY_MODEL,
          budgets: Budgets.parse({ maxTurns: 1, maxDepth: 1 }),
          codeBlocks: 'first',
          prompts: 'short',
        },
      ]
    : [];
  const root = toyAgent('0', null, prompt, answer, at);
  const kid = child ? toyAgent('0.0', '0', child.prompt, child.answer, at) : [];
  const call: RunEvent[] = child
    ? [
        {
          kind: 'child.call',
          at,
          agentId: '0',
          turn: 0,
          childId: '0.0',
          call: 'rlm',
          prompt: child.prompt,
        },
        ...kid,
        {
          kind: 'child.returned',
          at,
          agentId: '0',
          childId: '0.0',
          answer: child.answer,
          error: null,
        },
      ]
    : [];
  return [
    ...started,
    ...root,
    ...call,
    { kind: 'final.answer', at, agentId: '0', turn: 0, answer, via: 'FINAL' },
    {
      kind: 'run.finished',
      at,
      status: 'done',
      answer,
      agents: child ? 2 : 1,
      turns: child ? 2 : 1,
      usage: {
        inputTokens: child ? 2 : 1,
        outputTokens: answer.length + (child?.answer.length ?? 0),
      },
      costUsd: null,
      durationMs: 0,
      error: null,
    },
  ];
}

/** One agent's spawn and its one turn (a child's ends with its answer). */
function toyAgent(
  agentId: string,
  parentId: string | null,
  content: string,
  text: string,
  at: number,
): RunEvent[] {
  return [
    {
      kind: 'agent.spawned',
      at,
      agentId,
      parentId,
      depth: parentId ? 1 : 0,
      prompt: content,
      contextChars: 0,
    },
    { kind: 'turn.started', at, agentId, turn: 0, messages: [{ role: 'user', content }] },
    {
      kind: 'model.done',
      at,
      agentId,
      turn: 0,
      text,
      usage: { inputTokens: 1, outputTokens: text.length },
      costUsd: null,
      latencyMs: 0,
      finishReason: 'stop',
    },
    ...(parentId
      ? [{ kind: 'final.answer', at, agentId, turn: 0, answer: text, via: 'FINAL' } as const]
      : []),
  ];
}

export const TOY_MODEL = 'toy:bigram';

export interface ToyQuestion {
  id: string;
  context: string;
  good: string;
}

export const toyQuestions: readonly ToyQuestion[] = [
  { id: 'toy-x', context: 'x', good: 'a' },
  { id: 'toy-y', context: 'y', good: 'b' },
];

/** Held-out instances of the same two questions: the toy set is too small to hold one out. */
export const toyValidationQuestions: readonly ToyQuestion[] = [
  { id: 'toy-x-held-out', context: 'x', good: 'a' },
  { id: 'toy-y-held-out', context: 'y', good: 'b' },
];

export interface ToyRolloutRequest {
  seed: number;
  step: number;
  index: number;
  validation?: boolean;
}

export interface ToyEnvironmentOptions {
  /** The rollout's run id (default `toy-STEP-QUESTION-INDEX`). */
  runId?: (question: ToyQuestion, request: ToyRolloutRequest) => string;
  now?: () => number;
}

/**
 * Rollouts and rewards of the toy task, sampled from `policy` at `temperature` (the job's: its
 * turns are scored at the same one) with each rollout's seed.
 */
export function toyEnvironment(
  policy: TablePolicy,
  temperature = 1,
  options: ToyEnvironmentOptions = {},
) {
  return {
    rollout: (question: ToyQuestion, request: ToyRolloutRequest) => {
      const at = (context: string, seed: number) =>
        policy.vocabulary[policy.sample(policy.id(context), seed, temperature)] ?? '?';
      const root = at(question.context, request.seed);
      const child = at('z', request.seed + 1);
      const runId =
        options.runId?.(question, request) ?? `toy-${request.step}-${question.id}-${request.index}`;
      return Promise.resolve({
        runId,
        events: toyRun(
          `question ${question.context}`,
          root,
          { prompt: 'sub z', answer: child },
          options.runId ? { runId, at: (options.now ?? Date.now)() } : {},
        ),
      });
    },
    reward: (question: ToyQuestion, outcome: { events: readonly RunEvent[] }) => {
      const done = outcome.events.find((e) => e.kind === 'model.done' && e.agentId === '0');
      const right = done?.kind === 'model.done' && done.text === question.good;
      const score = right ? 1 : 0;
      return Promise.resolve({ reward: score, precision: score, recall: score });
    },
  };
}
