// The rubric judge (RLM-SPEC section 4): any Provider grades predicted spans against the gold ones
// with the template assets/prompts/evidence-judge.v1.md and must answer strict JSON
// {precision 1-10, recall 1-10, reasoning}; reward = (P/10 + R/10) / 2 at temperature 0. A failed
// call or a malformed reply is retried with backoff; when every attempt fails the reward is 0 and
// the reason is kept with the verdict, never thrown.
import { z } from 'zod';
import type { Provider } from '../models/index.ts';
import { fillTemplate, loadTemplate } from '../rlm/index.ts';

export const JUDGE_TEMPLATE = 'evidence-judge.v1.md';
/** The agent id judge calls carry (scripted providers answer by it; the attempt is the turn). */
export const JUDGE_AGENT_ID = '0:judge';

export interface JudgeInput {
  question: string;
  gold: readonly string[];
  predicted: readonly string[];
}

export interface JudgeVerdict {
  status: 'ok' | 'failed';
  precision: number | null;
  recall: number | null;
  reasoning: string;
  reward: number;
  /** Why each failed attempt failed (the last one explains a failed verdict). */
  failures: string[];
  attempts: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number | null;
  template: string;
}

export interface JudgeOptions {
  provider: Provider;
  /** Attempts in all, the first included (default 4). */
  maxAttempts?: number;
  /** Delay before the first retry, doubled each time (default 500 ms). */
  baseDelayMs?: number;
  maxTokens?: number;
  sleep?: (ms: number) => Promise<void>;
}

const Score = z.number().int().min(1).max(10);
const Reply = z.object({ precision: Score, recall: Score, reasoning: z.string() }).strict();

export class MalformedJudgeReplyError extends Error {
  override readonly name = 'MalformedJudgeReplyError';
}

/** The reply as strict JSON; a ```json fence around it is the only leniency. */
export function parseJudgeReply(text: string): z.infer<typeof Reply> {
  const trimmed = text.trim();
  const fenced = /^```(?:json)?\s*\n([\s\S]*?)\n?```$/.exec(trimmed);
  const body = fenced?.[1] ?? trimmed;
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    throw new MalformedJudgeReplyError(
      `the reply is not one JSON object: ${JSON.stringify(trimmed.slice(0, 120))}`,
    );
  }
  const parsed = Reply.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.map(String).join('.') ?? '';
    throw new MalformedJudgeReplyError(
      `the reply's ${field ? `'${field}'` : 'object'} is wrong: ${issue?.message ?? 'invalid'}`,
    );
  }
  return parsed.data;
}

function numbered(passages: readonly string[]): string {
  return passages.length > 0
    ? passages.map((text, index) => `[${index + 1}] ${text}`).join('\n\n')
    : '(none)';
}

export function judgePrompt(input: JudgeInput): string {
  return fillTemplate(loadTemplate(JUDGE_TEMPLATE), {
    question: input.question,
    gold: numbered(input.gold),
    predicted: numbered(input.predicted),
  });
}

export function rubricReward(precision: number, recall: number): number {
  return (precision / 10 + recall / 10) / 2;
}

export class RubricJudge {
  readonly #options: JudgeOptions;

  constructor(options: JudgeOptions) {
    this.#options = options;
  }

  get spec(): string {
    return this.#options.provider.spec;
  }

  async judge(input: JudgeInput, signal?: AbortSignal): Promise<JudgeVerdict> {
    const { provider } = this.#options;
    const maxAttempts = Math.max(1, this.#options.maxAttempts ?? 4);
    const baseDelay = this.#options.baseDelayMs ?? 500;
    const sleep =
      this.#options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
    const prompt = judgePrompt(input);
    const verdict: JudgeVerdict = {
      status: 'failed',
      precision: null,
      recall: null,
      reasoning: '',
      reward: 0,
      failures: [],
      attempts: 0,
      inputTokens: 0,
      outputTokens: 0,
      costUsd: 0,
      template: JUDGE_TEMPLATE,
    };
    for (let attempt = 0; attempt < maxAttempts; attempt++) {
      if (signal?.aborted) {
        verdict.failures.push('canceled');
        break;
      }
      if (attempt > 0) await sleep(baseDelay * 2 ** (attempt - 1));
      verdict.attempts = attempt + 1;
      try {
        const completion = await provider.complete({
          messages: [{ role: 'user', content: prompt }],
          agentId: JUDGE_AGENT_ID,
          turn: attempt,
          temperature: 0,
          ...(this.#options.maxTokens !== undefined ? { maxTokens: this.#options.maxTokens } : {}),
          ...(signal ? { signal } : {}),
        });
        verdict.inputTokens += completion.usage.inputTokens;
        verdict.outputTokens += completion.usage.outputTokens;
        verdict.costUsd =
          verdict.costUsd === null || completion.costUsd === null
            ? null
            : verdict.costUsd + completion.costUsd;
        const reply = parseJudgeReply(completion.text);
        return {
          ...verdict,
          status: 'ok',
          precision: reply.precision,
          recall: reply.recall,
          reasoning: reply.reasoning,
          reward: rubricReward(reply.precision, reply.recall),
        };
      } catch (error) {
        verdict.failures.push(
          error instanceof Error ? `${error.name}: ${error.message}` : String(error),
        );
      }
    }
    return verdict;
  }
}
