// The rollout reward: rubric with a judge, span F1 without, 0 for no answer (judge not asked).
import { describe, expect, it } from 'vitest';
import { ScriptedProvider } from '../models/index.ts';
import { JUDGE_AGENT_ID, RubricJudge } from './judge.ts';
import { evidencePaper } from './paper-text.ts';
import { evidenceReward } from './reward.ts';

const paper = evidencePaper('p', 'T', 'Abstract.', 'We use a BiLSTM encoder. It has two layers.');
const question = {
  id: 'q',
  question: 'Which encoder?',
  set: 's',
  paperIds: ['p'],
  gold: [{ paperId: 'p', text: 'We use a BiLSTM encoder.' }],
  metadata: {},
};

describe('evidenceReward', () => {
  it('is the span F1 without a judge and 0 without an answer', async () => {
    const exact = await evidenceReward(question, ['We use a BiLSTM encoder.'], [paper]);
    expect(exact).toMatchObject({ reward: 1, source: 'span-f1', spanF1: 1 });
    const half = await evidenceReward(
      question,
      ['We use a BiLSTM encoder. It has two layers.'],
      [paper],
    );
    expect(half.reward).toBeCloseTo((2 * (24 / 43) * 1) / (24 / 43 + 1), 12);
    expect(await evidenceReward(question, null, [paper])).toMatchObject({
      reward: 0,
      source: 'no-answer',
    });
  });

  it('is the rubric reward with a judge', async () => {
    let calls = 0;
    const inner = new ScriptedProvider({
      [JUDGE_AGENT_ID]: ['{"precision": 10, "recall": 6, "reasoning": "ok"}'],
    });
    const judge = new RubricJudge({
      provider: {
        spec: 'scripted:judge',
        complete: (request) => {
          calls++;
          return inner.complete(request);
        },
      },
    });
    const result = await evidenceReward(question, { p: ['It has two layers.'] }, [paper], {
      judge,
    });
    expect(result).toMatchObject({ source: 'rubric', spanF1: 0 });
    expect(result.reward).toBeCloseTo(0.8, 12);
    await evidenceReward(question, null, [paper], { judge });
    expect(calls).toBe(1);
  });
});
