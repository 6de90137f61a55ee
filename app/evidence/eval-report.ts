// An eval's report as a pure function of its stored results: mean rubric, mean span F1, QASPER
// Evidence-F1 (unfinished questions count 0, as the official evaluator counts missing ones),
// latency median and p90 (nearest rank), tokens and cost (null when any cost is unknown).
import type { EvalReport, EvalResult } from '../api/index.ts';

function mean(values: readonly number[]): number | null {
  return values.length > 0 ? values.reduce((a, b) => a + b, 0) / values.length : null;
}

/** Nearest-rank percentile of sorted values. */
export function percentile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1] ?? null;
}

export function evalReport(
  results: readonly EvalResult[],
  total: number,
  hasEvidenceF1: boolean,
): EvalReport {
  const latencies = results.map((r) => r.latencyMs).sort((a, b) => a - b);
  const evidence = results.flatMap((r) => (r.evidenceF1 === null ? [] : [r.evidenceF1]));
  let cost: number | null = 0;
  for (const r of results) cost = cost === null || r.costUsd === null ? null : cost + r.costUsd;
  return {
    total,
    done: results.filter((r) => r.status === 'done').length,
    failed: results.filter((r) => r.status === 'failed').length,
    meanRubric: mean(results.flatMap((r) => (r.rubric === null ? [] : [r.rubric]))),
    meanSpanF1: mean(results.flatMap((r) => (r.spanF1 === null ? [] : [r.spanF1]))),
    evidenceF1: hasEvidenceF1 && total > 0 ? evidence.reduce((a, b) => a + b, 0) / total : null,
    latencyMedianMs: percentile(latencies, 50),
    latencyP90Ms: percentile(latencies, 90),
    inputTokens: results.reduce((sum, r) => sum + r.inputTokens, 0),
    outputTokens: results.reduce((sum, r) => sum + r.outputTokens, 0),
    costUsd: results.length > 0 ? cost : null,
  };
}
