// The Train view's chart data, pure: which figure each chart shows (TRL's, verl's and SkyRL's first
// reads among them), the x axis (step, time since the job began, wall time), and an exponential
// smoothing drawn over the faint raw values. A job that runs SFT first logs SFT steps 1..n, then
// GRPO steps 1..m: on the step axis GRPO comes after SFT (x = n + step), the loss chart draws the
// two losses apart, and `phaseEdge` is where the charts mark the change.
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
  | 'sftLoss'
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
  {
    id: 'loss',
    title: 'Loss (SFT cross-entropy, then the GRPO loss)',
    metrics: ['sftLoss', 'loss'],
  },
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
  loss: 'GRPO loss',
  sftLoss: 'SFT loss',
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

/**
 * A figure of a step; those added after old metrics files were written read as missing there. The
 * loss is the GRPO objective on GRPO steps, `sftLoss` the cross-entropy on SFT steps.
 */
export function metricValue(metrics: StepMetrics, key: MetricKey | BandKey): number | null {
  if (key === 'sftLoss') return metrics.phase === 'sft' ? metrics.loss : null;
  if (key === 'loss') return metrics.phase === 'grpo' ? metrics.loss : null;
  return metrics[key] ?? null;
}

/** SFT steps logged before the GRPO ones: the offset of GRPO steps on the step axis. */
export function sftSteps(metrics: readonly StepMetrics[]): number {
  return metrics.filter((m) => m.phase === 'sft').length;
}

/** A line's place in a job's log: SFT steps first, then GRPO steps. */
const order = (m: StepMetrics) => (m.phase === 'sft' ? 0 : 1_000_000_000) + m.step;

/**
 * A job's lines with a new one from the live feed: a resumed job (or a restarted SFT phase) logs
 * again from its checkpoint, so the new line replaces it and every line after it.
 */
export function appendStep(metrics: readonly StepMetrics[], line: StepMetrics): StepMetrics[] {
  return [...metrics.filter((m) => order(m) < order(line)), line];
}

/** Where a step sits on the x axis; `offset` is the job's `sftSteps` (GRPO follows SFT). */
export function xValue(metrics: StepMetrics, axis: XAxis, offset = 0): number {
  switch (axis) {
    case 'step':
      return metrics.phase === 'grpo' ? metrics.step + offset : metrics.step;
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

/**
 * Where SFT ends and GRPO begins on the x axis (halfway between the last SFT step and the first
 * GRPO one), or null for a job of one phase (or one whose GRPO has not begun).
 */
export function phaseEdge(metrics: readonly StepMetrics[], axis: XAxis): number | null {
  const offset = sftSteps(metrics);
  const lastSft = metrics.findLast((m) => m.phase === 'sft');
  const firstGrpo = metrics.find((m) => m.phase === 'grpo');
  if (!lastSft || !firstGrpo) return null;
  return (xValue(lastSft, axis, offset) + xValue(firstGrpo, axis, offset)) / 2;
}

/** The step a point of the chart stands for (a GRPO step's groups open in the table), or null. */
export function stepAt(
  metrics: readonly StepMetrics[],
  axis: XAxis,
  x: number,
): StepMetrics | null {
  const offset = sftSteps(metrics);
  return metrics.find((m) => xValue(m, axis, offset) === x) ?? null;
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
  const offset = sftSteps(metrics);
  return {
    x: metrics.map((m) => xValue(m, axis, offset)),
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
