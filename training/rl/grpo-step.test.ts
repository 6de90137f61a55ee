import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../app/api/index.ts';
import { grpoStep, type GrpoDeps } from './grpo-step.ts';
import { TablePolicy, toyRun } from './toy-task.ts';

// Question 'same': every rollout right (a zero-variance group), its child's turn cut at the token
// limit. Question 'mixed': every other rollout right. The root answers with 1 token, the child 2.
function rolloutEvents(question: string, index: number): RunEvent[] {
  const right = question === 'same' || index % 2 === 0;
  const events = toyRun(`question ${question} x`, right ? 'a' : 'b', {
    prompt: 'sub z',
    answer: 'bb',
  });
  if (question !== 'same') return events;
  return events.map((e) =>
    e.kind === 'model.done' && e.agentId === '0.0' ? { ...e, finishReason: 'length' } : e,
  );
}

function deps(): GrpoDeps<{ id: string }> {
  let clock = 0;
  return {
    policy: new TablePolicy('xyzab'),
    rollout: (question, request) =>
      Promise.resolve({
        runId: `${question.id}-${request.index}`,
        events: rolloutEvents(question.id, request.index),
      }),
    reward: (_question, outcome) => {
      const root = outcome.events.find((e) => e.kind === 'model.done' && e.agentId === '0');
      return Promise.resolve({ reward: root?.kind === 'model.done' && root.text === 'a' ? 1 : 0 });
    },
    config: {
      groupSize: 4,
      learningRate: 1,
      beta: 0,
      clipLow: 0.2,
      clipHigh: 0.2,
      weighting: 'subtree-mean',
      seed: 0,
      temperature: 1,
    },
    // Every reading of the clock is one second later.
    now: () => (clock += 1000),
  };
}

describe('grpoStep figures', () => {
  it('logs reward spread, zero-variance groups, lengths, cut turns, token shares and phases', async () => {
    const { figures } = await grpoStep(deps(), [{ id: 'same' }, { id: 'mixed' }], 1);
    expect(figures.rewardMean).toBe(0.75);
    expect(figures.zeroVarianceGroups).toBe(1);
    expect(figures.zeroVarianceShare).toBe(0.5);
    // Group stds 0 and 0.5.
    expect(figures.rewardStd).toBeCloseTo(0.25, 12);
    expect(figures).toMatchObject({
      responseLengthMean: 1.5,
      responseLengthMin: 1,
      responseLengthMax: 2,
      // The 4 children's turns of 'same', of 16 turns in all.
      truncatedShare: 0.25,
    });
    // Only 'mixed' trains (no KL term, zero advantages skipped): 4 roots x 1 token, 4 children x 2.
    expect(figures.rootTokenShare).toBeCloseTo(1 / 3, 12);
    expect(figures.childTokenShare).toBeCloseTo(2 / 3, 12);
    expect(figures).toMatchObject({
      rolloutSeconds: 1,
      rewardSeconds: 1,
      backwardSeconds: 1,
      optimizerSeconds: 1,
    });
    // 12 trained tokens over the 5 seconds the step's clock read.
    expect(figures.tokensPerSecond).toBeCloseTo(12 / 5, 12);
  });

  it('returns how each rollout was trained, matching the logged groups', async () => {
    const { figures, rollouts } = await grpoStep(deps(), [{ id: 'same' }, { id: 'mixed' }], 2);
    expect(rollouts).toHaveLength(8);
    const same = rollouts.find((r) => r.runId === 'same-0');
    expect(same?.group).toMatchObject({ mean: 1, std: 0, zeroVariance: true });
    expect(same?.agents.map((a) => a.trainedTurns)).toEqual([[], []]);
    const mixed = rollouts.find((r) => r.runId === 'mixed-1');
    expect(mixed?.reward).toBe(0);
    expect(mixed?.advantage).toBeLessThan(0);
    expect(mixed?.agents).toMatchObject([
      { agentId: '0', inherited: false, weight: 1, trainedTurns: [{ turn: 0, tokens: 1 }] },
      { agentId: '0.0', inherited: true, weight: 1, trainedTurns: [{ turn: 0, tokens: 2 }] },
    ]);
    expect(mixed?.agents[1]?.advantage).toBe(mixed?.advantage);
    const logged = figures.groups.find((g) => g.questionId === 'mixed')?.rollouts[1];
    expect(logged).toEqual({ runId: 'mixed-1', reward: 0, advantage: mixed?.advantage });
  });
});
