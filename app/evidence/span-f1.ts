// Character-span precision, recall and F1 (RLM-SPEC section 4): intervals merged per paper,
// overlap / predicted and overlap / gold, summed over papers ("pooled"), F1 = 2PR/(P+R); a zero
// denominator gives 0, as in the reference. Per-paper figures are kept for the report.

export interface Interval {
  start: number;
  end: number;
}

export interface SpanCounts {
  predictedChars: number;
  goldChars: number;
  overlapChars: number;
}

export interface SpanScore extends SpanCounts {
  precision: number;
  recall: number;
  f1: number;
}

export function mergeIntervals(intervals: readonly Interval[]): Interval[] {
  const merged: Interval[] = [];
  for (const { start, end } of [...intervals].sort((a, b) => a.start - b.start || a.end - b.end)) {
    const last = merged.at(-1);
    if (last && start <= last.end) last.end = Math.max(last.end, end);
    else merged.push({ start, end });
  }
  return merged;
}

export function unionSize(intervals: readonly Interval[]): number {
  return mergeIntervals(intervals).reduce((sum, { start, end }) => sum + (end - start), 0);
}

export function intersectionSize(a: readonly Interval[], b: readonly Interval[]): number {
  const x = mergeIntervals(a);
  const y = mergeIntervals(b);
  let i = 0;
  let j = 0;
  let total = 0;
  while (i < x.length && j < y.length) {
    const p = x[i];
    const q = y[j];
    if (!p || !q) break;
    const lo = Math.max(p.start, q.start);
    const hi = Math.min(p.end, q.end);
    if (lo < hi) total += hi - lo;
    if (p.end < q.end) i++;
    else j++;
  }
  return total;
}

export function spanScore(counts: SpanCounts): SpanScore {
  const precision = counts.predictedChars > 0 ? counts.overlapChars / counts.predictedChars : 0;
  const recall = counts.goldChars > 0 ? counts.overlapChars / counts.goldChars : 0;
  const f1 = precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0;
  return { ...counts, precision, recall, f1 };
}

/** Per paper and pooled over papers, from each side's intervals keyed by paper id. */
export function scoreSpans(
  predicted: ReadonlyMap<string, readonly Interval[]>,
  gold: ReadonlyMap<string, readonly Interval[]>,
): { pooled: SpanScore; perPaper: Record<string, SpanScore> } {
  const perPaper: Record<string, SpanScore> = {};
  const total: SpanCounts = { predictedChars: 0, goldChars: 0, overlapChars: 0 };
  for (const paperId of new Set([...gold.keys(), ...predicted.keys()])) {
    const p = predicted.get(paperId) ?? [];
    const g = gold.get(paperId) ?? [];
    const counts = {
      predictedChars: unionSize(p),
      goldChars: unionSize(g),
      overlapChars: intersectionSize(p, g),
    };
    perPaper[paperId] = spanScore(counts);
    total.predictedChars += counts.predictedChars;
    total.goldChars += counts.goldChars;
    total.overlapChars += counts.overlapChars;
  }
  return { pooled: spanScore(total), perPaper };
}
