// QASPER's Evidence-F1, computed as the official evaluator (qasper_evaluator.py, v0.3) computes it:
// per annotator a paragraph-level F1 over exact strings (precision and recall divide by list
// lengths, duplicates included), the best annotator per question, the mean over every gold
// question, a missing prediction 0 and an empty prediction for an unanswerable annotator 1.
// `evidenceStrings` turns located spans into the strings the evaluator compares.
import type { SpanLocation } from './locate.ts';
import type { EvidencePaper } from './question.ts';

export function paragraphF1(prediction: readonly string[], gold: readonly string[]): number {
  if (gold.length === 0 && prediction.length === 0) return 1.0;
  const predicted = new Set(prediction);
  let same = 0;
  for (const item of new Set(gold)) if (predicted.has(item)) same++;
  if (same === 0) return 0.0;
  const precision = same / prediction.length;
  const recall = same / gold.length;
  return (2 * precision * recall) / (precision + recall);
}

/** The best annotator's F1 (the evaluator's max over references). */
export function questionEvidenceF1(
  prediction: readonly string[],
  annotations: readonly (readonly string[])[],
): number {
  let best = -Infinity;
  for (const gold of annotations) best = Math.max(best, paragraphF1(prediction, gold));
  return best === -Infinity ? 0 : best;
}

/** The mean over gold questions in order, summed left to right as Python's sum() does. */
export function meanEvidenceF1(
  gold: readonly { id: string; annotations: readonly (readonly string[])[] }[],
  predictions: ReadonlyMap<string, readonly string[]>,
): number {
  if (gold.length === 0) return 0;
  let sum = 0;
  for (const question of gold) {
    const prediction = predictions.get(question.id);
    sum += prediction === undefined ? 0.0 : questionEvidenceF1(prediction, question.annotations);
  }
  return sum / gold.length;
}

/**
 * The evidence strings a prediction cites: a span that is itself an evidence string of its paper
 * counts as that string (the evaluator compares strings); any other located span counts as every
 * unit (paragraph, section name, caption) it overlaps. Each string once, in order of first use.
 */
export function evidenceStrings(
  spans: readonly { text: string; location: SpanLocation | null }[],
  papers: ReadonlyMap<string, EvidencePaper>,
): string[] {
  const out = new Set<string>();
  for (const { text, location } of spans) {
    const direct = [...papers.values()].find((paper) => paper.annotatedEvidence?.has(text));
    if (direct) {
      out.add(text);
      continue;
    }
    if (!location) continue;
    const units = papers.get(location.paperId)?.units ?? [];
    for (const unit of units)
      if (unit.start < location.end && location.start < unit.end) out.add(unit.evidence);
  }
  return [...out];
}
