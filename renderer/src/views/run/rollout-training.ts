// How a training rollout's cards and header word what the trainer did with it (train.rollout):
// the advantage each agent trained with (children's marked inherited), its weight as a fraction
// where it is one (1/k), the trained turns with their token counts, the group's figures. Pure.
import type { AgentTraining, RolloutTraining } from '../../../../app/api/index.ts';

export function formatAdvantage(advantage: number): string {
  const fixed = advantage.toFixed(3);
  return advantage > 0 ? `+${fixed}` : fixed === '-0.000' ? '0.000' : fixed;
}

/** 1, 1/k for small k (the write-up's subtree weights), else three decimals. */
export function formatWeight(weight: number): string {
  if (weight === 0) return '0';
  if (Math.abs(weight - 1) < 1e-9) return '1';
  const k = Math.round(1 / weight);
  if (k >= 2 && k <= 1024 && Math.abs(weight * k - 1) < 1e-9) return `1/${k}`;
  return weight.toFixed(3);
}

export function formatTrainedTurns(turns: AgentTraining['trainedTurns']): string {
  if (turns.length === 0) return 'no turn trained';
  return turns.map((t) => `t${t.turn}: ${t.tokens} tok`).join(', ');
}

/** The card's one line: advantage (inherited?), weight, trained turns. */
export function agentTrainingLine(agent: AgentTraining): string {
  return [
    `adv ${formatAdvantage(agent.advantage)}${agent.inherited ? ' inherited' : ''}`,
    `w ${formatWeight(agent.weight)}`,
    formatTrainedTurns(agent.trainedTurns),
  ].join(' · ');
}

/** The card's tooltip: the same in words. */
export function agentTrainingTitle(agent: AgentTraining): string {
  return [
    `advantage ${formatAdvantage(agent.advantage)}${agent.inherited ? ' (inherited from the root)' : ''}`,
    `weight ${formatWeight(agent.weight)} of a root's (token weight ${agent.tokenWeight.toPrecision(3)})`,
    `trained: ${formatTrainedTurns(agent.trainedTurns)}`,
  ].join('\n');
}

export function groupLine(rollout: RolloutTraining): string {
  const { group } = rollout;
  return `group of ${group.runIds.length}: mean ${group.mean.toFixed(3)}, std ${group.std.toFixed(3)}`;
}

/** The group's other rollouts, best reward first, to compare this one with. */
export function comparePartners(rollout: RolloutTraining): { runId: string; reward: number }[] {
  return rollout.group.runIds
    .map((runId, i) => ({ runId, reward: rollout.group.rewards[i] ?? 0 }))
    .filter((other) => other.runId !== rollout.runId)
    .sort((a, b) => b.reward - a.reward);
}

export function trainingByAgent(
  rollout: RolloutTraining | null,
): ReadonlyMap<string, AgentTraining> | null {
  return rollout ? new Map(rollout.agents.map((agent) => [agent.agentId, agent])) : null;
}
