// The Train view's chart data, pure: which figure each chart shows, the x axis (step, time since the
// job began, wall time), and an exponential smoothing drawn over the faint raw values.
import type { StepMetrics } from '../../../../app/api/index.ts';

export type XAxis = 'step' | 'relative' | 'wall';

export type MetricKey =
  | 'rewardMean'
  | 'precisionMean'
  | 'recallMean'
  | 'loss'
  | 'kl'
  | 'entropy'
  | 'gradNorm'
  | 'tokensPerSecond'
  | 'turnsPerRollout'
  | 'childrenPerRollout';

export interface ChartSpec {
  id: string;
  title: string;
  metrics: readonly MetricKey[];
  /** Shade the band between the group's lowest and highest reward. */
  band?: boolean;
}

export const charts: readonly ChartSpec[] = [
  { id: 'reward', title: 'Reward (mean, min–max band)', metrics: ['rewardMean'], band: true },
  { id: 'rubric', title: 'Rubric precision and recall', metrics: ['precisionMean', 'recallMean'] },
  { id: 'loss', title: 'Loss', metrics: ['loss'] },
  { id: 'kl', title: 'KL to the reference', metrics: ['kl'] },
  { id: 'entropy', title: 'Entropy', metrics: ['entropy'] },
  { id: 'grad', title: 'Gradient norm', metrics: ['gradNorm'] },
  { id: 'speed', title: 'Tokens per second', metrics: ['tokensPerSecond'] },
  {
    id: 'shape',
    title: 'Turns and children per rollout',
    metrics: ['turnsPerRollout', 'childrenPerRollout'],
  },
];

export const metricLabels: Record<MetricKey, string> = {
  rewardMean: 'reward',
  precisionMean: 'precision',
  recallMean: 'recall',
  loss: 'loss',
  kl: 'KL',
  entropy: 'entropy',
  gradNorm: 'grad norm',
  tokensPerSecond: 'tokens/s',
  turnsPerRollout: 'turns',
  childrenPerRollout: 'children',
};

export function xValue(metrics: StepMetrics, axis: XAxis): number {
  switch (axis) {
    case 'step':
      return metrics.step;
    case 'relative':
      return metrics.elapsedMs / 1000;
    case 'wall':
      return metrics.at / 1000;
  }
}

/**
 * Exponential moving average with TensorBoard's debiasing, so the first points are not dragged
 * toward 0. `strength` 0 is the raw series, near 1 very smooth. Missing values stay missing.
 */
export function smooth(values: readonly (number | null)[], strength: number): (number | null)[] {
  const w = Math.min(Math.max(strength, 0), 0.999);
  let last = 0;
  let n = 0;
  return values.map((value) => {
    if (value === null || !Number.isFinite(value)) return null;
    last = last * w + (1 - w) * value;
    n++;
    const debias = 1 - w ** n;
    return debias === 0 ? value : last / debias;
  });
}

export interface ChartSeries {
  label: string;
  values: (number | null)[];
  smoothed: (number | null)[];
}

export interface ChartData {
  x: number[];
  series: ChartSeries[];
  band: { min: (number | null)[]; max: (number | null)[] } | null;
}

export function chartData(
  metrics: readonly StepMetrics[],
  spec: ChartSpec,
  axis: XAxis,
  strength: number,
): ChartData {
  const series = spec.metrics.map((key) => {
    const values = metrics.map((m) => m[key]);
    return { label: metricLabels[key], values, smoothed: smooth(values, strength) };
  });
  return {
    x: metrics.map((m) => xValue(m, axis)),
    series,
    band: spec.band
      ? { min: metrics.map((m) => m.rewardMin), max: metrics.map((m) => m.rewardMax) }
      : null,
  };
}
