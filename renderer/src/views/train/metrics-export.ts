// A job's metrics as files other tools load: CSV (one row per step, flat columns) and JSON lines
// with flat slash-named keys as W&B and TensorBoard scalars go ({"step":1,"train/reward_mean":...};
// `wall_time` in seconds since the epoch, TensorBoard's). Figures a step did not log are left out
// of its JSON line and empty in its CSV row. Pure.
import type { StepMetrics } from '../../../../app/api/index.ts';

type NumericKey = {
  [K in keyof StepMetrics]-?: StepMetrics[K] extends number | null | undefined ? K : never;
}[keyof StepMetrics];

/** Each exported name and the figure it holds, in column order. */
export const exportedFigures: readonly (readonly [string, NumericKey])[] = [
  ['train/loss', 'loss'],
  ['train/reward_mean', 'rewardMean'],
  ['train/reward_std', 'rewardStd'],
  ['train/reward_min', 'rewardMin'],
  ['train/reward_max', 'rewardMax'],
  ['train/zero_variance_group_share', 'zeroVarianceShare'],
  ['train/zero_variance_groups', 'zeroVarianceGroups'],
  ['train/precision_mean', 'precisionMean'],
  ['train/recall_mean', 'recallMean'],
  ['train/kl', 'kl'],
  ['train/clip_fraction', 'clipFraction'],
  ['train/entropy', 'entropy'],
  ['train/grad_norm', 'gradNorm'],
  ['train/response_length_mean', 'responseLengthMean'],
  ['train/response_length_min', 'responseLengthMin'],
  ['train/response_length_max', 'responseLengthMax'],
  ['train/truncated_share', 'truncatedShare'],
  ['train/turns_per_rollout', 'turnsPerRollout'],
  ['train/children_per_rollout', 'childrenPerRollout'],
  ['train/parent_token_share', 'rootTokenShare'],
  ['train/child_token_share', 'childTokenShare'],
  ['val/pass_at_k', 'passAtK'],
  ['val/reward_mean', 'validationRewardMean'],
  ['perf/tokens_per_second', 'tokensPerSecond'],
  ['timing_s/rollout', 'rolloutSeconds'],
  ['timing_s/reward', 'rewardSeconds'],
  ['timing_s/backward', 'backwardSeconds'],
  ['timing_s/optimizer', 'optimizerSeconds'],
  ['timing_s/validation', 'validationSeconds'],
];

/** One step as flat numbers: step, wall_time, elapsed_s, then every figure it logged. */
export function flatStep(metrics: StepMetrics): Record<string, number> {
  const flat: Record<string, number> = {
    step: metrics.step,
    wall_time: metrics.at / 1000,
    elapsed_s: metrics.elapsedMs / 1000,
  };
  for (const [name, key] of exportedFigures) {
    const value = metrics[key];
    if (typeof value === 'number' && Number.isFinite(value)) flat[name] = value;
  }
  return flat;
}

export function metricsJsonLines(metrics: readonly StepMetrics[]): string {
  return metrics.map((m) => `${JSON.stringify(flatStep(m))}\n`).join('');
}

const csvColumns = ['step', 'phase', 'wall_time', 'elapsed_s', ...exportedFigures.map(([n]) => n)];

function csvCell(value: string | number | undefined): string {
  if (value === undefined) return '';
  const text = String(value);
  return /[",\n\r]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function metricsCsv(metrics: readonly StepMetrics[]): string {
  const rows = metrics.map((m) => {
    const flat: Record<string, string | number> = { ...flatStep(m), phase: m.phase };
    return csvColumns.map((column) => csvCell(flat[column])).join(',');
  });
  return [csvColumns.join(','), ...rows].map((row) => `${row}\n`).join('');
}

/** A file name from the job's name: letters, digits, dots, dashes and underscores only. */
export function exportFileName(jobName: string, extension: 'csv' | 'jsonl'): string {
  const base = jobName.replace(/[^\w.-]+/g, '-').replace(/^-+|-+$/g, '') || 'job';
  return `${base}-metrics.${extension}`;
}
