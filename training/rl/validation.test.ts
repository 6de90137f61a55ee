import { describe, expect, it } from 'vitest';
import type { RolloutRequest } from './grpo-step.ts';
import { holdOut, passAtK, validate, validatesAt } from './validation.ts';
import { TrainingInputError } from './training-errors.ts';

describe('validation', () => {
  it('passes a question when any of its k samples has a reward above 0', () => {
    expect(passAtK([[0, 0, 0.2], [0, 0, 0], [1, 1, 1], [0]])).toBe(0.5);
    expect(passAtK([])).toBe(0);
  });

  it('runs every N steps and on the last', () => {
    const steps = [1, 2, 3, 4, 5, 6, 7].filter((s) =>
      validatesAt(s, { every: 3, k: 1, count: 1 }, 7),
    );
    expect(steps).toEqual([3, 6, 7]);
  });

  it('holds out the set’s last questions, and refuses to hold out all of them', () => {
    expect(holdOut(['a', 'b', 'c'], 1)).toEqual({ train: ['a', 'b'], validation: ['c'] });
    expect(() => holdOut(['a'], 1)).toThrow(TrainingInputError);
  });

  it('samples k rollouts per question, flagged and seeded apart from training', async () => {
    const requests: RolloutRequest[] = [];
    let clock = 0;
    const figures = await validate(
      {
        config: { seed: 1 },
        now: () => (clock += 500),
        rollout: (question: { id: string }, request) => {
          requests.push(request);
          return Promise.resolve({ runId: `${question.id}-${request.index}`, events: [] });
        },
        // 'pass' scores only on its third sample; 'fail' never.
        reward: (question, outcome) =>
          Promise.resolve({ reward: outcome.runId === 'pass-2' ? 1 : 0 }),
      },
      [{ id: 'pass' }, { id: 'fail' }],
      4,
      3,
    );
    expect(figures.passAtK).toBe(0.5);
    expect(figures.validationRewardMean).toBeCloseTo(1 / 6, 12);
    expect(figures.validationSeconds).toBe(0.5);
    expect(requests).toHaveLength(6);
    expect(requests.every((r) => r.validation === true && r.step === 4)).toBe(true);
    expect(new Set(requests.map((r) => r.seed)).size).toBe(6);
  });
});
