// The figures of a GRPO step that TRL, verl and SkyRL users read first, as pure functions of what
// the step saw: reward spread and zero-variance groups, response lengths and the share cut at the
// token limit, and which agents the trained tokens came from.
import { groupStats, type WeightedSample } from './advantages.ts';

export interface RewardSpread {
  /** The mean over groups of each group's reward std (TRL's reward_std). */
  rewardStd: number;
  zeroVarianceShare: number;
  zeroVarianceGroups: number;
}

export function rewardSpread(groups: readonly (readonly number[])[]): RewardSpread {
  if (groups.length === 0) return { rewardStd: 0, zeroVarianceShare: 0, zeroVarianceGroups: 0 };
  const stats = groups.map(groupStats);
  const zero = stats.filter((s) => s.zeroVariance).length;
  return {
    rewardStd: mean(stats.map((s) => s.std)),
    zeroVarianceShare: zero / groups.length,
    zeroVarianceGroups: zero,
  };
}

/** One sampled agent turn: its response tokens, and whether it ended (false: cut at the limit). */
export interface SampledTurn {
  tokens: number;
  ended: boolean;
}

export interface ResponseLengths {
  responseLengthMean: number | null;
  responseLengthMin: number | null;
  responseLengthMax: number | null;
  truncatedShare: number | null;
}

export function responseLengths(turns: readonly SampledTurn[]): ResponseLengths {
  if (turns.length === 0) {
    return {
      responseLengthMean: null,
      responseLengthMin: null,
      responseLengthMax: null,
      truncatedShare: null,
    };
  }
  const tokens = turns.map((t) => t.tokens);
  return {
    responseLengthMean: mean(tokens),
    responseLengthMin: Math.min(...tokens),
    responseLengthMax: Math.max(...tokens),
    truncatedShare: turns.filter((t) => !t.ended).length / turns.length,
  };
}

export interface TokenShares {
  rootTokenShare: number | null;
  childTokenShare: number | null;
}

/** Of the trained samples' response tokens, the share from each rollout's root and from children. */
export function tokenShares(
  trained: readonly WeightedSample[],
  rootOf: (question: number, rollout: number) => string,
): TokenShares {
  let root = 0;
  let all = 0;
  for (const sample of trained) {
    all += sample.tokens;
    if (sample.agentId === rootOf(sample.question, sample.rollout)) root += sample.tokens;
  }
  if (all === 0) return { rootTokenShare: null, childTokenShare: null };
  return { rootTokenShare: root / all, childTokenShare: (all - root) / all };
}

export function mean(values: readonly number[]): number {
  return values.length === 0 ? 0 : values.reduce((s, v) => s + v, 0) / values.length;
}
