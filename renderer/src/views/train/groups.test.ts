import { describe, expect, it } from 'vitest';
import { comparePartner, groupSummary } from './groups.ts';

describe('GRPO group summary', () => {
  it('gives the mean, the population std and the zero-variance flag', () => {
    expect(groupSummary([1, 0, 1, 0])).toEqual({ mean: 0.5, std: 0.5, zeroVariance: false });
    const alike = groupSummary([0.1, 0.1, 0.1]);
    expect(alike.zeroVariance).toBe(true);
    expect(alike.std).toBe(0);
  });

  it('pairs a rollout with the group’s best, and the best with the worst', () => {
    const rollouts = [
      { runId: 'a', reward: 0.2 },
      { runId: 'b', reward: 1 },
      { runId: 'c', reward: 0 },
    ];
    expect(comparePartner(rollouts, 'a')).toBe('b');
    expect(comparePartner(rollouts, 'c')).toBe('b');
    expect(comparePartner(rollouts, 'b')).toBe('c');
    expect(comparePartner([{ runId: 'a', reward: 1 }], 'a')).toBeNull();
  });
});
