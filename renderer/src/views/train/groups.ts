// A GRPO group as the Train view's table sums it up: the rewards' mean and population std (as the
// trainer's advantages use them), whether they were all alike (zero variance: the group taught
// nothing), and which rollout to compare each one with. Pure.
export interface GroupSummary {
  mean: number;
  std: number;
  zeroVariance: boolean;
}

export function groupSummary(rewards: readonly number[]): GroupSummary {
  if (rewards.length === 0) return { mean: 0, std: 0, zeroVariance: true };
  const zeroVariance = rewards.every((r) => r === rewards[0]);
  const mean = rewards.reduce((s, r) => s + r, 0) / rewards.length;
  const variance = rewards.reduce((s, r) => s + (r - mean) ** 2, 0) / rewards.length;
  return { mean, std: zeroVariance ? 0 : Math.sqrt(variance), zeroVariance };
}

/** The group's best rollout to set beside this one (its worst, for the best itself). */
export function comparePartner(
  rollouts: readonly { runId: string; reward: number }[],
  runId: string,
): string | null {
  const others = rollouts.filter((r) => r.runId !== runId);
  if (others.length === 0) return null;
  const self = rollouts.find((r) => r.runId === runId);
  const best = others.reduce((a, b) => (b.reward > a.reward ? b : a));
  const worst = others.reduce((a, b) => (b.reward < a.reward ? b : a));
  return self && self.reward >= best.reward ? worst.runId : best.runId;
}
