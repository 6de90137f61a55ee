import { describe, expect, it } from 'vitest';
import type { StepMetrics } from '../../../../app/api/index.ts';
import { appendStep, chartData, charts, phaseEdge, smooth, stepAt, xValue } from './series.ts';

const step = (n: number, reward: number | null): StepMetrics => ({
  step: n,
  phase: 'grpo',
  at: 1_700_000_000_000 + n * 2000,
  elapsedMs: n * 2000,
  loss: -n,
  gradNorm: 1,
  tokensPerSecond: 100,
  entropy: null,
  rewardMean: reward,
  rewardMin: reward === null ? null : reward - 0.1,
  rewardMax: reward === null ? null : reward + 0.1,
  precisionMean: null,
  recallMean: null,
  kl: 0,
  clipFraction: 0,
  turnsPerRollout: 2,
  childrenPerRollout: 1,
  groups: [],
});

describe('smooth', () => {
  it('is the raw series at strength 0 and debiased at the start', () => {
    expect(smooth([1, 2, 3], 0)).toEqual([1, 2, 3]);
    // A constant series stays constant at any strength: no pull toward 0.
    for (const v of smooth([5, 5, 5, 5], 0.9)) expect(v).toBeCloseTo(5, 12);
    const s = smooth([0, 10], 0.5);
    expect(s[1]).toBeCloseTo((0.5 * 0 * 0.5 + 0.5 * 10) / (1 - 0.25), 12);
  });

  it('keeps missing values missing and skips them', () => {
    expect(smooth([1, null, 1], 0.6)).toEqual([1, null, 1]);
  });
});

describe('chart data', () => {
  it('puts x on steps, seconds since the start or wall time', () => {
    const m = step(3, 0.5);
    expect(xValue(m, 'step')).toBe(3);
    expect(xValue(m, 'relative')).toBe(6);
    expect(xValue(m, 'wall')).toBe(1_700_000_006);
  });

  it('carries the reward band and each figure of a chart', () => {
    const data = chartData(
      [step(1, 0.2), step(2, 0.4)],
      charts[0] ?? charts[1] ?? { id: 'none', title: '', metrics: [] },
      'step',
      0,
    );
    expect(data.x).toEqual([1, 2]);
    expect(data.series[0]?.values).toEqual([0.2, 0.4]);
    expect(data.band?.max[1]).toBeCloseTo(0.5, 12);
    const shape = charts.find((c) => c.id === 'shape');
    if (!shape) throw new Error('no shape chart');
    expect(chartData([step(1, 0)], shape, 'step', 0).series.map((s) => s.label)).toEqual([
      'turns',
      'children',
    ]);
  });

  const spec = (id: string) => {
    const found = charts.find((c) => c.id === id);
    if (!found) throw new Error(`no ${id} chart`);
    return found;
  };

  it('reads the figures old metrics files lack as missing', () => {
    const data = chartData(
      [step(1, 0.2), { ...step(2, 0.4), rewardStd: 0.3 }],
      spec('reward-std'),
      'step',
      0,
    );
    expect(data.series[0]?.values).toEqual([null, 0.3]);
  });

  it('draws a count against the right axis beside its share, and the length band', () => {
    const line = { ...step(1, 0.5), zeroVarianceShare: 0.25, zeroVarianceGroups: 4 };
    const zero = chartData([line], spec('zero-variance'), 'step', 0);
    expect(zero.series.map((s) => [s.label, s.values[0], s.secondary])).toEqual([
      ['zero-variance share', 0.25, false],
      ['zero-variance groups', 4, true],
    ]);
    const lengths = { ...line, responseLengthMean: 5, responseLengthMin: 1, responseLengthMax: 9 };
    const length = chartData([lengths], spec('length'), 'step', 0);
    expect(length.band).toEqual({ min: [1], max: [9] });
    expect(length.series[0]?.values).toEqual([5]);
  });

  it('has a chart for each figure the issue names', () => {
    const drawn = new Set(charts.flatMap((c) => [...c.metrics, ...(c.secondary ?? [])]));
    for (const key of [
      'rewardStd',
      'zeroVarianceShare',
      'zeroVarianceGroups',
      'clipFraction',
      'responseLengthMean',
      'truncatedShare',
      'rootTokenShare',
      'childTokenShare',
      'passAtK',
      'rolloutSeconds',
      'optimizerSeconds',
    ] as const)
      expect(drawn.has(key)).toBe(true);
    expect(spec('pass-at-k').sparse).toBe(true);
  });
});

describe('a job with an SFT phase', () => {
  const sft = (n: number): StepMetrics => ({
    ...step(n, null),
    phase: 'sft',
    loss: 3 - n,
    elapsedMs: n * 500,
  });
  const job = [sft(1), sft(2), sft(3), step(1, 0.1), step(2, 0.3)];

  it('puts GRPO after SFT on the step axis and marks the edge between them', () => {
    const loss = charts.find((c) => c.id === 'loss');
    if (!loss) throw new Error('no loss chart');
    const data = chartData(job, loss, 'step', 0);
    expect(data.x).toEqual([1, 2, 3, 4, 5]);
    expect(data.series.map((s) => [s.label, s.values])).toEqual([
      ['SFT loss', [2, 1, 0, null, null]],
      ['GRPO loss', [null, null, null, -1, -2]],
    ]);
    expect(phaseEdge(job, 'step')).toBe(3.5);
    expect(phaseEdge(job.slice(0, 3), 'step')).toBeNull();
    expect(phaseEdge(job.slice(3), 'step')).toBeNull();
    // Time axes keep each line's own time: SFT ends at 1.5 s, GRPO's first step at 2 s.
    expect(phaseEdge(job, 'relative')).toBe(1.75);
  });

  it('takes live lines after the SFT ones, and a resumed phase replaces what followed it', () => {
    const steps = (lines: readonly StepMetrics[]) => lines.map((m) => `${m.phase}${m.step}`);
    expect(steps(appendStep(job, step(3, 0.5)))).toEqual([
      'sft1',
      'sft2',
      'sft3',
      'grpo1',
      'grpo2',
      'grpo3',
    ]);
    expect(steps(appendStep(job, step(2, 0.5)))).toEqual([
      'sft1',
      'sft2',
      'sft3',
      'grpo1',
      'grpo2',
    ]);
    expect(steps(appendStep(job, sft(1)))).toEqual(['sft1']);
  });

  it('maps a point back to its step and phase', () => {
    expect(stepAt(job, 'step', 4)).toMatchObject({ phase: 'grpo', step: 1 });
    expect(stepAt(job, 'step', 2)).toMatchObject({ phase: 'sft', step: 2 });
    expect(stepAt(job, 'step', 9)).toBeNull();
  });
});
