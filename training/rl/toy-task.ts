// The toy task (`baseModel: 'toy:bigram'`): a trainer demo and test bed that needs no model. The
// policy is a bigram table over characters with exact gradients, the first response character
// conditioned on the prompt's last one; the adapter is a delta on the base table, so the reference
// policy (adapter off) is the base table. Questions: after 'x' answer 'a', after 'y' answer 'b';
// each rollout's root also spawns one child, whose turn inherits the root's advantage.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { RunEvent } from '../../app/api/index.ts';
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

/** A run log of a root that answers with one character and, optionally, a child that does too. */
export function toyRun(
  prompt: string,
  answer: string,
  child?: { prompt: string; answer: string },
): RunEvent[] {
  const agent = (
    agentId: string,
    parentId: string | null,
    content: string,
    text: string,
  ): RunEvent[] => [
    {
      kind: 'agent.spawned',
      at: 0,
      agentId,
      parentId,
      depth: parentId ? 1 : 0,
      prompt: content,
      contextChars: 0,
    },
    { kind: 'turn.started', at: 0, agentId, turn: 0, messages: [{ role: 'user', content }] },
    {
      kind: 'model.done',
      at: 0,
      agentId,
      turn: 0,
      text,
      usage: { inputTokens: 1, outputTokens: text.length },
      costUsd: null,
      latencyMs: 0,
      finishReason: 'stop',
    },
  ];
  return [
    ...agent('0', null, prompt, answer),
    ...(child ? agent('0.0', '0', child.prompt, child.answer) : []),
    {
      kind: 'run.finished',
      at: 0,
      status: 'done',
      answer,
      agents: child ? 2 : 1,
      turns: child ? 2 : 1,
      usage: { inputTokens: 0, outputTokens: 0 },
      costUsd: null,
      durationMs: 0,
      error: null,
    },
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

/**
 * Rollouts and rewards of the toy task, sampled from `policy` at `temperature` (the job's: its
 * turns are scored at the same one) with each rollout's seed.
 */
export function toyEnvironment(policy: TablePolicy, temperature = 1) {
  return {
    rollout: (question: ToyQuestion, request: { seed: number; step: number; index: number }) => {
      const at = (context: string, seed: number) =>
        policy.vocabulary[policy.sample(policy.id(context), seed, temperature)] ?? '?';
      const root = at(question.context, request.seed);
      const child = at('z', request.seed + 1);
      return Promise.resolve({
        runId: `toy-${request.step}-${question.id}-${request.index}`,
        events: toyRun(`question ${question.context}`, root, { prompt: 'sub z', answer: child }),
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
