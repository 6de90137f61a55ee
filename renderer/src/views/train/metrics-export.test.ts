import { describe, expect, it } from 'vitest';
import type { StepMetrics } from '../../../../app/api/index.ts';
import { exportFileName, flatStep, metricsCsv, metricsJsonLines } from './metrics-export.ts';

const base: StepMetrics = {
  step: 1,
  phase: 'grpo',
  at: 1_700_000_000_500,
  elapsedMs: 2500,
  loss: -0.25,
  gradNorm: 1.5,
  tokensPerSecond: 400,
  entropy: null,
  rewardMean: 0.5,
  rewardMin: 0,
  rewardMax: 1,
  precisionMean: null,
  recallMean: null,
  kl: 0,
  clipFraction: 0.125,
  turnsPerRollout: 2,
  childrenPerRollout: 1,
  groups: [{ questionId: 'q', rollouts: [{ runId: 'r', reward: 1, advantage: 1 }] }],
};

describe('metrics export', () => {
  it('flattens a step to slash-named scalars, leaving out what it did not log', () => {
    const flat = flatStep({ ...base, rewardStd: 0.5, passAtK: 0.75, rolloutSeconds: 1.25 });
    expect(flat).toMatchObject({
      step: 1,
      wall_time: 1_700_000_000.5,
      elapsed_s: 2.5,
      'train/loss': -0.25,
      'train/reward_mean': 0.5,
      'train/reward_std': 0.5,
      'train/clip_fraction': 0.125,
      'val/pass_at_k': 0.75,
      'timing_s/rollout': 1.25,
      'perf/tokens_per_second': 400,
    });
    expect(flat).not.toHaveProperty('train/entropy');
    // An old line without the newer figures has none of their keys.
    expect(flatStep(base)).not.toHaveProperty('train/zero_variance_groups');
  });

  it('writes one JSON object per line', () => {
    const text = metricsJsonLines([base, { ...base, step: 2, passAtK: 1 }]);
    const lines = text.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(JSON.parse(lines[1] ?? '{}')).toMatchObject({ step: 2, 'val/pass_at_k': 1 });
    expect(text.endsWith('\n')).toBe(true);
  });

  it('writes a CSV with one header and one row per step, empty cells for missing figures', () => {
    const csv = metricsCsv([base, { ...base, step: 2, phase: 'sft', entropy: 0.3 }]);
    const [header, first, second] = csv
      .trimEnd()
      .split('\n')
      .map((row) => row.split(','));
    expect(header?.slice(0, 5)).toEqual(['step', 'phase', 'wall_time', 'elapsed_s', 'train/loss']);
    const column = (name: string) => header?.indexOf(name) ?? -1;
    expect(first?.[column('phase')]).toBe('grpo');
    expect(first?.[column('train/entropy')]).toBe('');
    expect(second?.[column('train/entropy')]).toBe('0.3');
    expect(second?.[column('phase')]).toBe('sft');
    expect(first).toHaveLength(header?.length ?? 0);
  });

  it('names the files after the job', () => {
    expect(exportFileName('toy run #1', 'csv')).toBe('toy-run-1-metrics.csv');
    expect(exportFileName('///', 'jsonl')).toBe('job-metrics.jsonl');
  });
});
