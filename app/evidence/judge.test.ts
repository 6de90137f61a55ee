// The rubric judge with a scripted provider: the prompt, strict replies, the reward, retries with
// backoff on malformed replies and failed calls, 0 with the reason when every attempt fails.
import { describe, expect, it } from 'vitest';
import {
  ScriptedProvider,
  type Completion,
  type CompletionRequest,
  type Provider,
} from '../models/index.ts';
import { JUDGE_AGENT_ID, parseJudgeReply, RubricJudge, judgePrompt } from './judge.ts';

const input = {
  question: 'Which dataset is used?',
  gold: ['We evaluate on SQuAD.'],
  predicted: ['We evaluate on SQuAD.', 'Results are in Table 2.'],
};

function scripted(lines: string[]): ScriptedProvider {
  return new ScriptedProvider({ [JUDGE_AGENT_ID]: lines }, { spec: 'scripted:judge' });
}

describe('rubric judge', () => {
  it('fills the template with the question and numbered passages', () => {
    const prompt = judgePrompt(input);
    expect(prompt).toContain('Which dataset is used?');
    expect(prompt).toContain('[1] We evaluate on SQuAD.\n\n[2] Results are in Table 2.');
    expect(judgePrompt({ ...input, predicted: [] })).toContain('(none)');
    expect(prompt).not.toMatch(/\{\{/);
  });

  it('asks at temperature 0 and turns the scores into the reward', async () => {
    const seen: CompletionRequest[] = [];
    const inner = scripted(['{"precision": 8, "recall": 6, "reasoning": "Mostly tight."}']);
    const provider: Provider = {
      spec: inner.spec,
      complete: (request) => {
        seen.push(request);
        return inner.complete(request);
      },
    };
    const verdict = await new RubricJudge({ provider }).judge(input);
    expect(verdict).toMatchObject({
      status: 'ok',
      precision: 8,
      recall: 6,
      attempts: 1,
      failures: [],
    });
    expect(verdict.reward).toBeCloseTo(0.7, 12);
    expect(seen[0]?.temperature).toBe(0);
    expect(seen[0]?.messages[0]?.content).toContain('Selected evidence');
  });

  it('retries malformed replies with growing delays, then accepts a good one', async () => {
    const delays: number[] = [];
    const judge = new RubricJudge({
      provider: scripted([
        'Precision: 9, recall: 9',
        '{"precision": 11, "recall": 5, "reasoning": "x"}',
        '```json\n{"precision": 10, "recall": 10, "reasoning": "Exact."}\n```',
      ]),
      baseDelayMs: 100,
      sleep: (ms) => {
        delays.push(ms);
        return Promise.resolve();
      },
    });
    const verdict = await judge.judge(input);
    expect(verdict).toMatchObject({ status: 'ok', reward: 1, attempts: 3 });
    expect(delays).toEqual([100, 200]);
    expect(verdict.failures[0]).toMatch(
      /^MalformedJudgeReplyError: the reply is not one JSON object/,
    );
    expect(verdict.failures[1]).toMatch(/'precision' is wrong/);
  });

  it('scores 0 with the reason when every attempt fails, errors included', async () => {
    let calls = 0;
    const failing: Provider = {
      spec: 'broken:judge',
      complete: (): Promise<Completion> => {
        calls++;
        return Promise.reject(new Error('server said 500'));
      },
    };
    const judge = new RubricJudge({
      provider: failing,
      maxAttempts: 3,
      sleep: () => Promise.resolve(),
    });
    const verdict = await judge.judge(input);
    expect(verdict).toMatchObject({ status: 'failed', reward: 0, precision: null, attempts: 3 });
    expect(calls).toBe(3);
    expect(verdict.failures).toEqual([
      'Error: server said 500',
      'Error: server said 500',
      'Error: server said 500',
    ]);

    const malformed = new RubricJudge({
      provider: scripted(['{"precision": 5}', 'nope']),
      maxAttempts: 2,
      sleep: () => Promise.resolve(),
    });
    const bad = await malformed.judge(input);
    expect(bad).toMatchObject({ status: 'failed', reward: 0 });
    expect(bad.failures.at(-1)).toMatch(/MalformedJudgeReplyError/);
  });

  it('accepts only the strict shape', () => {
    expect(parseJudgeReply(' {"precision": 1, "recall": 10, "reasoning": ""} ')).toEqual({
      precision: 1,
      recall: 10,
      reasoning: '',
    });
    expect(() => parseJudgeReply('{"precision": 7.5, "recall": 3, "reasoning": "x"}')).toThrow(
      /precision/,
    );
    expect(() =>
      parseJudgeReply('{"precision": 7, "recall": 3, "reasoning": "x", "extra": 1}'),
    ).toThrow();
    expect(() => parseJudgeReply('Sure! {"precision": 7, "recall": 3, "reasoning": "x"}')).toThrow(
      /not one JSON object/,
    );
  });
});
