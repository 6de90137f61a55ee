// GRPO advantages with inheritance for child agents (RLM-SPEC section 5). Pure: a batch of rollout
// trees in, one weighted step-wise sample per agent turn out, so the loss is a plain weighted sum.
// Invariant (write-up weighting): each root's own tokens weigh 1/(Q*G) in all, and the children of
// an agent together weigh as much as the agent itself.

import type { ChildWeighting } from '../../app/api/index.ts';
import { mulberry32 } from '../../app/random/mulberry32.ts';

export type { ChildWeighting };

/** One agent of a rollout as the trainer sees it: its turns (the step-wise samples) and children. */
export interface RolloutNode {
  agentId: string;
  /** Action-token count of each of this agent's turns; only these tokens get gradient. */
  turnTokens: readonly number[];
  children: readonly RolloutNode[];
}

/** One root rollout of a question and the reward its final answer earned. */
export interface Rollout {
  root: RolloutNode;
  reward: number;
}

/*
 * How child agents count in the objective (ChildWeighting, defined in app/api for the Train view):
 * - `subtree-mean` (the write-up, default): L_subtree(y) = L_node(y) + (1/k_y) sum_i L_subtree(y_i);
 * - `sample-one-child`: one child per parent, drawn with the seeded generator, counts fully;
 * - `token-mean` (the reference code): every action token of the batch weighs the same.
 */

export interface AdvantageOptions {
  weighting?: ChildWeighting;
  /** Added to the group's standard deviation; a group whose rewards are all equal gets 0. */
  epsilon?: number;
  /** Seed of the child draw for `sample-one-child`. */
  seed?: number;
}

/** One trainable sample: one turn of one agent, its advantage and the weight of each action token. */
export interface WeightedSample {
  question: number;
  rollout: number;
  agentId: string;
  turn: number;
  tokens: number;
  advantage: number;
  tokenWeight: number;
}

export class RolloutGroupError extends Error {
  override name = 'RolloutGroupError';
}

/** A group's reward mean and population standard deviation; zeroVariance: every reward alike. */
export interface GroupStats {
  mean: number;
  std: number;
  zeroVariance: boolean;
}

export function groupStats(rewards: readonly number[]): GroupStats {
  if (rewards.length === 0) throw new RolloutGroupError('a GRPO group needs at least one rollout');
  for (const r of rewards) {
    if (!Number.isFinite(r)) throw new RolloutGroupError(`reward ${r} is not a finite number`);
  }
  const mean = rewards.reduce((s, r) => s + r, 0) / rewards.length;
  // Compared exactly, not through the std: n equal rewards can give a mean a rounding off them.
  const zeroVariance = rewards.every((r) => r === rewards[0]);
  const variance = zeroVariance
    ? 0
    : rewards.reduce((s, r) => s + (r - mean) ** 2, 0) / rewards.length;
  return { mean: zeroVariance ? (rewards[0] ?? 0) : mean, std: Math.sqrt(variance), zeroVariance };
}

/** A_g = (r_g - mean) / (std + epsilon) over one group, population standard deviation. */
export function groupAdvantages(rewards: readonly number[], epsilon = 1e-6): number[] {
  const { mean, std, zeroVariance } = groupStats(rewards);
  // Equal rewards carry no signal; dividing 0 by epsilon would still be 0, but say it plainly.
  if (zeroVariance) return rewards.map(() => 0);
  return rewards.map((r) => (r - mean) / (std + epsilon));
}

/** Every turn of every agent of every rollout, with its inherited advantage and token weight. */
export function weightedSamples(
  groups: readonly (readonly Rollout[])[],
  options: AdvantageOptions = {},
): WeightedSample[] {
  const weighting = options.weighting ?? 'subtree-mean';
  const random = mulberry32(options.seed ?? 0);
  const samples: WeightedSample[] = [];
  const questions = groups.length;
  groups.forEach((group, question) => {
    const advantages = groupAdvantages(
      group.map((r) => r.reward),
      options.epsilon,
    );
    group.forEach((rollout, index) => {
      const visit = (node: RolloutNode, nodeWeight: number): void => {
        const total = node.turnTokens.reduce((s, t) => s + t, 0);
        node.turnTokens.forEach((tokens, turn) => {
          if (tokens <= 0) return;
          samples.push({
            question,
            rollout: index,
            agentId: node.agentId,
            turn,
            tokens,
            advantage: advantages[index] ?? 0,
            // Per-token mean within a node: the node's weight spread over all its action tokens.
            tokenWeight: weighting === 'token-mean' ? 1 : nodeWeight / total,
          });
        });
        const k = node.children.length;
        if (k === 0) return;
        if (weighting === 'sample-one-child') {
          const chosen = node.children[Math.floor(random() * k)];
          if (chosen) visit(chosen, nodeWeight);
        } else {
          for (const child of node.children) visit(child, nodeWeight / k);
        }
      };
      visit(rollout.root, 1 / (questions * group.length));
    });
  });
  if (weighting === 'token-mean') {
    const tokens = samples.reduce((s, x) => s + x.tokens, 0);
    for (const sample of samples) sample.tokenWeight = 1 / tokens;
  }
  return samples;
}
