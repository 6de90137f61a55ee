import { describe, expect, it } from 'vitest';
import { weightedSamples, type Rollout, type RolloutNode } from './advantages.ts';
import { rolloutTrainings } from './rollout-training.ts';

const node = (agentId: string, turnTokens: number[], children: RolloutNode[] = []) => ({
  agentId,
  turnTokens,
  children,
});

// A root with two children, the first with a child of its own; a second rollout with no children.
const wide: Rollout = {
  reward: 1,
  root: node('0', [2, 3], [node('0.0', [4], [node('0.0.0', [1])]), node('0.1', [0, 6])]),
};
const alone: Rollout = { reward: 0, root: node('0', [5]) };

describe('rolloutTrainings', () => {
  it('gives each agent its inherited advantage, 1/k weight and trained turns', () => {
    const groups = [[wide, alone]];
    const samples = weightedSamples(groups);
    const records = rolloutTrainings({
      step: 3,
      questionIds: ['q'],
      groups,
      runIds: [['run-a', 'run-b']],
      samples,
      // As a step with no KL term trains: only the first rollout's turns, say.
      trained: samples.filter((s) => s.rollout === 0),
    });
    expect(records.map((r) => r.runId)).toEqual(['run-a', 'run-b']);
    const [a, b] = records;
    expect(a?.step).toBe(3);
    expect(a?.reward).toBe(1);
    expect(a?.advantage).toBeCloseTo(1, 5);
    expect(a?.agents.map((x) => x.agentId)).toEqual(['0', '0.0', '0.0.0', '0.1']);
    expect(a?.agents.map((x) => x.inherited)).toEqual([false, true, true, true]);
    for (const agent of a?.agents ?? []) expect(agent.advantage).toBe(a?.advantage);
    const weights = a?.agents.map((x) => x.weight) ?? [];
    [1, 0.5, 0.5, 0.5].forEach((w, i) => {
      expect(weights[i]).toBeCloseTo(w, 12);
    });
    expect(a?.agents[0]?.trainedTurns).toEqual([
      { turn: 0, tokens: 2 },
      { turn: 1, tokens: 3 },
    ]);
    // The unfinished turn 0 of agent 0.1 had no tokens: only turn 1 trained.
    expect(a?.agents[3]?.trainedTurns).toEqual([{ turn: 1, tokens: 6 }]);
    // The root's 5 tokens share its weight: each token weighs 1/(Q*G)/5.
    expect(b?.agents[0]?.tokenWeight).toBeCloseTo(1 / 2 / 5, 12);
    expect(b?.agents[0]?.trainedTurns).toEqual([]);
    expect(b?.group).toEqual({
      mean: 0.5,
      std: 0.5,
      zeroVariance: false,
      runIds: ['run-a', 'run-b'],
      rewards: [1, 0],
    });
  });

  it('flags a group whose rewards are all alike, with zero advantages', () => {
    const groups = [
      [
        { ...alone, reward: 1 },
        { ...alone, reward: 1 },
      ],
    ];
    const records = rolloutTrainings({
      step: 1,
      questionIds: ['q'],
      groups,
      runIds: [['a', 'b']],
      samples: weightedSamples(groups),
      trained: [],
    });
    expect(records.map((r) => [r.advantage, r.group.zeroVariance, r.group.std])).toEqual([
      [0, true, 0],
      [0, true, 0],
    ]);
  });
});
