import { describe, expect, it } from 'vitest';
import type { RolloutTraining } from '../../../../app/api/index.ts';
import {
  agentTrainingLine,
  comparePartners,
  formatAdvantage,
  formatWeight,
  groupLine,
  trainingByAgent,
} from './rollout-training.ts';

const rollout: RolloutTraining = {
  step: 2,
  questionId: 'q',
  runId: 'b',
  reward: 0,
  advantage: -1.5,
  agents: [
    {
      agentId: '0',
      advantage: -1.5,
      inherited: false,
      weight: 1,
      tokenWeight: 0.25,
      trainedTurns: [
        { turn: 0, tokens: 3 },
        { turn: 1, tokens: 1 },
      ],
    },
    {
      agentId: '0.0',
      advantage: -1.5,
      inherited: true,
      weight: 1 / 3,
      tokenWeight: 0.1,
      trainedTurns: [],
    },
  ],
  group: {
    mean: 0.25,
    std: 0.433,
    zeroVariance: false,
    runIds: ['a', 'b', 'c', 'd'],
    rewards: [1, 0, 0, 0],
  },
};

describe('rollout training words', () => {
  it('signs advantages and writes subtree weights as fractions', () => {
    expect(formatAdvantage(1.2345)).toBe('+1.234');
    expect(formatAdvantage(-0.5)).toBe('-0.500');
    expect(formatAdvantage(-0.00001)).toBe('0.000');
    expect(formatWeight(1)).toBe('1');
    expect(formatWeight(0.25)).toBe('1/4');
    expect(formatWeight(1 / 6)).toBe('1/6');
    expect(formatWeight(0.3)).toBe('0.300');
    expect(formatWeight(0)).toBe('0');
  });

  it('says per agent what it trained with, children marked inherited', () => {
    const [root, child] = rollout.agents;
    if (!root || !child) throw new Error('agents missing');
    expect(agentTrainingLine(root)).toBe('adv -1.500 · w 1 · t0: 3 tok, t1: 1 tok');
    expect(agentTrainingLine(child)).toBe('adv -1.500 inherited · w 1/3 · no turn trained');
    expect(trainingByAgent(rollout)?.get('0.0')).toBe(child);
    expect(trainingByAgent(null)).toBeNull();
  });

  it('gives the group’s figures and the others to compare with, best first', () => {
    expect(groupLine(rollout)).toBe('group of 4: mean 0.250, std 0.433');
    expect(comparePartners(rollout).map((p) => p.runId)).toEqual(['a', 'c', 'd']);
  });
});
