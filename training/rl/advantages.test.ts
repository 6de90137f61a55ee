import { describe, expect, it } from 'vitest';
import {
  groupAdvantages,
  RolloutGroupError,
  weightedSamples,
  type Rollout,
  type RolloutNode,
  type WeightedSample,
} from './advantages.ts';

const node = (
  agentId: string,
  turnTokens: number[],
  children: RolloutNode[] = [],
): RolloutNode => ({
  agentId,
  turnTokens,
  children,
});

// Rollout 0: root 0 (turns of 10 and 20 tokens) spawns 0.0 (5) and 0.1 (4, 6); 0.1 spawns 0.1.0 (8).
// Rollout 1: a root alone with one turn of 30 tokens.
const branching: Rollout = {
  reward: 1,
  root: node('0', [10, 20], [node('0.0', [5]), node('0.1', [4, 6], [node('0.1.0', [8])])]),
};
const single: Rollout = { reward: 0, root: node('0', [30]) };

const byAgent = (samples: WeightedSample[], rollout: number, agentId: string) =>
  samples.filter((s) => s.rollout === rollout && s.agentId === agentId);
const mass = (samples: WeightedSample[]) =>
  samples.reduce((s, x) => s + x.tokens * x.tokenWeight, 0);

describe('groupAdvantages', () => {
  it('normalises by the group mean and population standard deviation', () => {
    const a = groupAdvantages([1, 0, 0.5, 0.5], 0);
    const std = Math.sqrt(0.125);
    expect(a).toEqual([0.5 / std, -0.5 / std, 0, 0]);
    const withEps = groupAdvantages([1, 0], 1e-6);
    expect(withEps[0]).toBeCloseTo(0.5 / (0.5 + 1e-6), 12);
  });

  it('gives 0 to a group whose rewards are all equal', () => {
    expect(groupAdvantages([0.3, 0.3, 0.3])).toEqual([0, 0, 0]);
  });

  it('refuses an empty group and rewards that are not numbers', () => {
    expect(() => groupAdvantages([])).toThrow(RolloutGroupError);
    expect(() => groupAdvantages([1, Number.NaN])).toThrow(/not a finite number/);
  });
});

describe('weightedSamples', () => {
  it('makes every turn of every agent a sample that inherits its root advantage', () => {
    const samples = weightedSamples([[branching, single]], { epsilon: 0 });
    expect(samples.map((s) => `${s.rollout}:${s.agentId}:${s.turn}`)).toEqual([
      '0:0:0',
      '0:0:1',
      '0:0.0:0',
      '0:0.1:0',
      '0:0.1:1',
      '0:0.1.0:0',
      '1:0:0',
    ]);
    for (const s of samples) expect(s.advantage).toBe(s.rollout === 0 ? 1 : -1);
  });

  it('weights subtrees as the write-up: 1/G per root, 1/k_y per child, per-token mean in a node', () => {
    const samples = weightedSamples([[branching, single]]);
    expect(byAgent(samples, 0, '0').map((s) => s.tokenWeight)).toEqual([1 / 60, 1 / 60]);
    expect(byAgent(samples, 0, '0.0')[0]?.tokenWeight).toBeCloseTo(1 / 20, 15);
    expect(byAgent(samples, 0, '0.1').map((s) => s.tokenWeight)).toEqual([1 / 40, 1 / 40]);
    expect(byAgent(samples, 0, '0.1.0')[0]?.tokenWeight).toBeCloseTo(1 / 32, 15);
    expect(byAgent(samples, 1, '0')[0]?.tokenWeight).toBeCloseTo(1 / 60, 15);
    // Each node's tokens carry its node weight: the root 1/G, each of the k=2 children 1/(2G), and
    // the only grandchild as much as its parent.
    expect(mass(byAgent(samples, 0, '0'))).toBeCloseTo(0.5, 15);
    expect(mass(byAgent(samples, 0, '0.0'))).toBeCloseTo(0.25, 15);
    expect(mass(byAgent(samples, 0, '0.1'))).toBeCloseTo(0.25, 15);
    expect(mass(byAgent(samples, 0, '0.1.0'))).toBeCloseTo(0.25, 15);
  });

  it('averages over questions', () => {
    const samples = weightedSamples([
      [branching, single],
      [single, single],
    ]);
    expect(byAgent(samples, 0, '0').find((s) => s.question === 0)?.tokenWeight).toBeCloseTo(
      1 / 120,
      15,
    );
    const second = samples.filter((s) => s.question === 1);
    expect(second.map((s) => s.advantage)).toEqual([0, 0]);
    expect(mass(second)).toBeCloseTo(0.5, 15);
  });

  it("weights every token alike with the reference code's token mean", () => {
    const samples = weightedSamples([[branching, single]], { weighting: 'token-mean' });
    const tokens = 10 + 20 + 5 + 4 + 6 + 8 + 30;
    for (const s of samples) expect(s.tokenWeight).toBe(1 / tokens);
    expect(mass(samples)).toBeCloseTo(1, 15);
  });

  it('keeps one child per parent, at the full weight, when sampling one child', () => {
    const seen = new Set<string>();
    for (let seed = 0; seed < 20; seed++) {
      const samples = weightedSamples([[branching, single]], {
        weighting: 'sample-one-child',
        seed,
      });
      const children = byAgent(samples, 0, '0.0').length + byAgent(samples, 0, '0.1').length;
      expect(children).toBeGreaterThan(0);
      const chosen = byAgent(samples, 0, '0.0').length > 0 ? '0.0' : '0.1';
      seen.add(chosen);
      expect(mass(byAgent(samples, 0, chosen))).toBeCloseTo(0.5, 15);
      const other = chosen === '0.0' ? '0.1' : '0.0';
      expect(byAgent(samples, 0, other)).toEqual([]);
      expect(byAgent(samples, 0, '0.1.0').length).toBe(chosen === '0.1' ? 1 : 0);
      // The same seed draws the same child: a resumed step trains the same samples.
      expect(
        weightedSamples([[branching, single]], { weighting: 'sample-one-child', seed }),
      ).toEqual(samples);
    }
    expect(seen).toEqual(new Set(['0.0', '0.1']));
  });

  it('skips turns without action tokens', () => {
    const samples = weightedSamples([[{ reward: 1, root: node('0', [0, 4]) }, single]]);
    expect(byAgent(samples, 0, '0').map((s) => s.turn)).toEqual([1]);
    expect(byAgent(samples, 0, '0')[0]?.tokenWeight).toBeCloseTo(1 / 8, 15);
  });
});
