// How each rollout of a GRPO step was trained, for the debugger's training-aware tree: the reward,
// the advantage every agent trained with (inherited from the root by children), its weight, the
// turns that got gradient and the group's figures. Pure: a step's trees and samples in.
import type { AgentTraining, RolloutTraining } from '../../app/api/index.ts';
import {
  groupAdvantages,
  groupStats,
  type Rollout,
  type RolloutNode,
  type WeightedSample,
} from './advantages.ts';

export interface StepRollouts {
  step: number;
  questionIds: readonly string[];
  groups: readonly (readonly Rollout[])[];
  runIds: readonly (readonly string[])[];
  /** Every weighted sample of the step, and the ones that got gradient. */
  samples: readonly WeightedSample[];
  trained: readonly WeightedSample[];
}

export function rolloutTrainings(input: StepRollouts): RolloutTraining[] {
  const bySample = indexSamples(input.samples);
  const byTrained = indexSamples(input.trained);
  return input.groups.flatMap((group, q) => {
    const rewards = group.map((r) => r.reward);
    const stats = groupStats(rewards);
    const advantages = groupAdvantages(rewards);
    const runIds = [...(input.runIds[q] ?? [])];
    return group.map((rollout, r): RolloutTraining => {
      const advantage = advantages[r] ?? 0;
      // A root's own tokens weigh 1/(Q*G) in all: weights are given relative to that share.
      const scale = input.groups.length * group.length;
      const agents = agentsOf(rollout.root).map((node) =>
        agentTraining(node, rollout.root.agentId, advantage, scale, {
          samples: bySample.get(sampleKey(q, r, node.agentId)) ?? [],
          trained: byTrained.get(sampleKey(q, r, node.agentId)) ?? [],
        }),
      );
      return {
        step: input.step,
        questionId: input.questionIds[q] ?? String(q),
        runId: runIds[r] ?? '',
        reward: rollout.reward,
        advantage,
        agents,
        group: { ...stats, runIds, rewards },
      };
    });
  });
}

function agentTraining(
  node: RolloutNode,
  rootId: string,
  advantage: number,
  scale: number,
  of: { samples: readonly WeightedSample[]; trained: readonly WeightedSample[] },
): AgentTraining {
  const weighted = of.samples.reduce((s, x) => s + x.tokens * x.tokenWeight, 0);
  return {
    agentId: node.agentId,
    advantage,
    inherited: node.agentId !== rootId,
    weight: weighted * scale,
    tokenWeight: of.samples[0]?.tokenWeight ?? 0,
    trainedTurns: of.trained
      .map((s) => ({ turn: s.turn, tokens: s.tokens }))
      .sort((a, b) => a.turn - b.turn),
  };
}

/** The tree's agents, root first, each before its children. */
function agentsOf(root: RolloutNode): RolloutNode[] {
  return [root, ...root.children.flatMap(agentsOf)];
}

function indexSamples(samples: readonly WeightedSample[]): Map<string, WeightedSample[]> {
  const index = new Map<string, WeightedSample[]>();
  for (const sample of samples) {
    const key = sampleKey(sample.question, sample.rollout, sample.agentId);
    const list = index.get(key);
    if (list) list.push(sample);
    else index.set(key, [sample]);
  }
  return index;
}

function sampleKey(question: number, rollout: number, agentId: string): string {
  return `${question}/${rollout}/${agentId}`;
}
