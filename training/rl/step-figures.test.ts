import { describe, expect, it } from 'vitest';
import type { WeightedSample } from './advantages.ts';
import { responseLengths, rewardSpread, tokenShares } from './step-figures.ts';

const sample = (
  question: number,
  rollout: number,
  agentId: string,
  tokens: number,
): WeightedSample => ({
  question,
  rollout,
  agentId,
  turn: 0,
  tokens,
  advantage: 1,
  tokenWeight: 1,
});

describe('step figures', () => {
  it('counts a group whose rewards are all alike as zero-variance', () => {
    // 0.1 three times: the mean is a rounding off 0.1, the group still has no spread.
    const spread = rewardSpread([
      [0.1, 0.1, 0.1],
      [0, 1, 0, 1],
      [1, 1, 1, 1],
    ]);
    expect(spread.zeroVarianceGroups).toBe(2);
    expect(spread.zeroVarianceShare).toBeCloseTo(2 / 3, 12);
    // Within-group stds 0, 0.5 and 0, averaged.
    expect(spread.rewardStd).toBeCloseTo(0.5 / 3, 12);
    expect(rewardSpread([])).toEqual({ rewardStd: 0, zeroVarianceShare: 0, zeroVarianceGroups: 0 });
  });

  it('gives response lengths and the share of turns cut at the token limit', () => {
    expect(
      responseLengths([
        { tokens: 4, ended: true },
        { tokens: 16, ended: false },
        { tokens: 1, ended: true },
        { tokens: 16, ended: false },
      ]),
    ).toEqual({
      responseLengthMean: 9.25,
      responseLengthMin: 1,
      responseLengthMax: 16,
      truncatedShare: 0.5,
    });
    expect(responseLengths([]).truncatedShare).toBeNull();
  });

  it('splits trained tokens between roots and children', () => {
    const shares = tokenShares(
      [sample(0, 0, '0', 3), sample(0, 0, '0.0', 5), sample(0, 1, '0.1', 2), sample(1, 0, '0', 10)],
      () => '0',
    );
    expect(shares.rootTokenShare).toBeCloseTo(13 / 20, 12);
    expect(shares.childTokenShare).toBeCloseTo(7 / 20, 12);
    expect(tokenShares([], () => '0')).toEqual({ rootTokenShare: null, childTokenShare: null });
  });
});
