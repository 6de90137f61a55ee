// The Train view's chart data, pure: which figure each chart shows (TRL's, verl's and SkyRL's first
// reads among them), the x axis (step, time since the job began, wall time), and an exponential
// smoothing drawn over the faint raw values.
import type { StepMetrics } from '../../../../app/api/index.ts';

export type XAxis = 'step' | 'relative' | 'wall';

export type MetricKey =
  | 'rewardMean'
  | 'rewardStd'
  | 'zeroVarianceShare'
  | 'zeroVarianceGroups'
  | 'precisionMean'
  | 'recallMean'
  | 'loss'
  | 'kl'
  | 'clipFraction'
  | 'entropy'
  | 'gradNorm'
  | 'responseLengthMean'
  | 'truncatedShare'
  | 'tokensPerSecond'
  | 'turnsPerRollout'
  | 'childrenPerRollout'
  | 'rootTokenShare'
  | 'childTokenShare'
  | 'passAtK'
  | 'validationRewardMean'
  | 'rolloutSeconds'
  | 'rewardSeconds'
  | 'backwardSeconds'
  | 'optimizerSeconds'
  | 'validationSeconds';

/** Figures a band is drawn between (under the chart's first line). */
export type BandKey = 'rewardMin' | 'rewardMax' | 'responseLengthMin' | 'responseLengthMax';

export interface ChartSpec {
  id: string;
  title: string;
  metrics: readonly MetricKey[];
  /** Drawn against a second axis on the right (a count beside a share). */
  secondary?: readonly MetricKey[];
  /** Shade the band between two figures (the group's lowest and highest reward, ...). */
  band?: { min: BandKey; max: BandKey };
  /** Figures logged on some steps only (validation): their points are joined across the gaps. */
  sparse?: boolean;
}

export const charts: readonly ChartSpec[] = [
  {
    id: 'reward',
    title: 'Reward (mean, min–max band)',
    metrics: ['rewardMean'],
    band: { min: 'rewardMin', max: 'rewardMax' },
  },
  { id: 'reward-std', title: 'Reward std within groups', metrics: ['rewardStd'] },
  {
    id: 'zero-variance',
    title: 'Groups with zero reward variance (share; how many, right axis)',
    metrics: ['zeroVarianceShare'],
    secondary: ['zeroVarianceGroups'],
  },
  { id: 'rubric', title: 'Rubric precision and recall', metrics: ['precisionMean', 'recallMean'] },
  { id: 'loss', title: 'Loss', metrics: ['loss'] },
  { id: 'clip', title: 'Clip fraction', metrics: ['clipFraction'] },
  { id: 'kl', title: 'KL to the reference', metrics: ['kl'] },
  { id: 'entropy', title: 'Entropy', metrics: ['entropy'] },
  { id: 'grad', title: 'Gradient norm', metrics: ['gradNorm'] },
  {
    id: 'length',
    title: 'Response length per turn (tokens: mean, min–max band)',
    metrics: ['responseLengthMean'],
    band: { min: 'responseLengthMin', max: 'responseLengthMax' },
  },
  { id: 'truncated', title: 'Turns cut at the token limit (share)', metrics: ['truncatedShare'] },
  {
    id: 'shape',
    title: 'Turns and children per rollout',
    metrics: ['turnsPerRollout', 'childrenPerRollout'],
  },
  {
    id: 'token-share',
    title: 'Trained tokens: parent vs children (share)',
    metrics: ['rootTokenShare', 'childTokenShare'],
  },
  {
    id: 'pass-at-k',
    title: 'Validation: pass@k and mean reward',
    metrics: ['passAtK', 'validationRewardMean'],
    sparse: true,
  },
  { id: 'speed', title: 'Tokens per second', metrics: ['tokensPerSecond'] },
  {
    id: 'phases',
    title: 'Seconds per phase',
    metrics: [
      'rolloutSeconds',
      'rewardSeconds',
      'backwardSeconds',
      'optimizerSeconds',
      'validationSeconds',
    ],
    sparse: true,
  },
];

export const metricLabels: Record<MetricKey, string> = {
  rewardMean: 'reward',
  rewardStd: 'reward std',
  zeroVarianceShare: 'zero-variance share',
  zeroVarianceGroups: 'zero-variance groups',
  precisionMean: 'precision',
  recallMean: 'recall',
  loss: 'loss',
  kl: 'KL',
  clipFraction: 'clip fraction',
  entropy: 'entropy',
  gradNorm: 'grad norm',
  responseLengthMean: 'response length',
  truncatedShare: 'cut at the limit',
  tokensPerSecond: 'tokens/s',
  turnsPerRollout: 'turns',
  childrenPerRollout: 'children',
  rootTokenShare: 'parent',
  childTokenShare: 'children',
  passAtK: 'pass@k',
  validationRewardMean: 'validation reward',
  rolloutSeconds: 'rollouts',
  rewardSeconds: 'reward',
  backwardSeconds: 'scoring + backward',
  optimizerSeconds: 'optimizer step',
  validationSeconds: 'validation',
};

/** A figure of a step; those added after old metrics files were written read as missing there. */
export function metricValue(metrics: StepMetrics, key: MetricKey | BandKey): number | null {
  return metrics[key] ?? null;
}

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
  /** Against the right-hand axis (the spec's `secondary`). */
  secondary: boolean;
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
  const line = (key: MetricKey, secondary: boolean): ChartSeries => {
    const values = metrics.map((m) => metricValue(m, key));
    return { label: metricLabels[key], values, smoothed: smooth(values, strength), secondary };
  };
  const { band } = spec;
  return {
    x: metrics.map((m) => xValue(m, axis)),
    series: [
      ...spec.metrics.map((key) => line(key, false)),
      ...(spec.secondary ?? []).map((key) => line(key, true)),
    ],
    band: band
      ? {
          min: metrics.map((m) => metricValue(m, band.min)),
          max: metrics.map((m) => metricValue(m, band.max)),
        }
      : null,
  };
}
