// Scores predicted spans against a question's gold: every span located (or reported unlocated),
// character-span P/R/F1 per paper and pooled, and QASPER's Evidence-F1 where the question has
// annotations. `summariseScores` folds per-question scores into the dataset's figures.
import { evidenceStrings, questionEvidenceF1 } from './evidence-f1.ts';
import { locateSpan, PaperIndex, type LocateOptions, type SpanLocation } from './locate.ts';
import type { EvidencePaper, EvidenceQuestion, EvidenceSpan } from './question.ts';
import { scoreSpans, spanScore, type Interval, type SpanScore } from './span-f1.ts';

export interface LocatedSpanReport {
  paperId: string | null;
  text: string;
  location: SpanLocation | null;
}

export interface QuestionScore {
  id: string;
  /** False when the prediction file had no row for this question. */
  predicted: boolean;
  spans: LocatedSpanReport[];
  gold: LocatedSpanReport[];
  /** Pooled over the question's papers; null when its gold evidence locates nowhere (or is empty). */
  span: SpanScore | null;
  perPaper: Record<string, SpanScore>;
  evidenceF1: number | null;
  /** The evidence strings the prediction cites (QASPER). */
  evidence: string[] | null;
}

export interface ScoreContext {
  papers: readonly EvidencePaper[];
  /** Reuse across questions over the same papers (indexes hold folded text and a span cache). */
  indexes?: Map<EvidencePaper, PaperIndex>;
  locate?: LocateOptions;
}

function indexesFor(context: ScoreContext): PaperIndex[] {
  return context.papers.map((paper) => {
    let index = context.indexes?.get(paper);
    if (!index) {
      index = new PaperIndex(paper);
      context.indexes?.set(paper, index);
    }
    return index;
  });
}

function locateAll(
  indexes: readonly PaperIndex[],
  spans: readonly EvidenceSpan[],
  options: LocateOptions | undefined,
): LocatedSpanReport[] {
  return spans.map((span) => ({
    paperId: span.paperId ?? null,
    text: span.text,
    location: locateSpan(indexes, span, options),
  }));
}

function intervals(reports: readonly LocatedSpanReport[]): Map<string, Interval[]> {
  const byPaper = new Map<string, Interval[]>();
  for (const { location } of reports) {
    if (!location) continue;
    byPaper.set(location.paperId, [
      ...(byPaper.get(location.paperId) ?? []),
      { start: location.start, end: location.end },
    ]);
  }
  return byPaper;
}

/** `prediction` null: the prediction file had no row for the question. */
export function scoreQuestion(
  question: EvidenceQuestion,
  prediction: readonly EvidenceSpan[] | null,
  context: ScoreContext,
): QuestionScore {
  const indexes = indexesFor(context);
  const gold = locateAll(indexes, question.gold, context.locate);
  const spans = locateAll(indexes, prediction ?? [], context.locate);
  const { pooled, perPaper } = scoreSpans(intervals(spans), intervals(gold));
  let evidence: string[] | null = null;
  let evidenceF1: number | null = null;
  if (question.annotations) {
    evidence = evidenceStrings(spans, new Map(context.papers.map((paper) => [paper.id, paper])));
    evidenceF1 = prediction === null ? 0 : questionEvidenceF1(evidence, question.annotations);
  }
  return {
    id: question.id,
    predicted: prediction !== null,
    spans,
    gold,
    span: pooled.goldChars > 0 ? pooled : null,
    perPaper,
    evidenceF1,
    evidence,
  };
}

export interface DatasetScore {
  n: number;
  missing: number;
  /** Questions whose gold locates somewhere: the span figures average over these. */
  spanScored: number;
  span_precision: number;
  span_recall: number;
  span_f1: number;
  /** Characters summed over every question and paper, then P/R/F1 once. */
  pooled: SpanScore;
  evidence_f1: number | null;
  unlocated: { predicted: number; gold: number };
  methods: Record<string, number>;
}

export function summariseScores(scores: readonly QuestionScore[]): DatasetScore {
  const scored = scores.flatMap((score) => (score.span ? [score.span] : []));
  const mean = (values: readonly number[]) =>
    values.length > 0 ? values.reduce((a, b) => a + b, 0) / values.length : 0;
  const totals = { predictedChars: 0, goldChars: 0, overlapChars: 0 };
  const methods: Record<string, number> = {};
  let unlocatedPredicted = 0;
  let unlocatedGold = 0;
  for (const score of scores) {
    for (const paper of Object.values(score.perPaper)) {
      totals.predictedChars += paper.predictedChars;
      totals.goldChars += paper.goldChars;
      totals.overlapChars += paper.overlapChars;
    }
    for (const span of score.spans) {
      if (span.location) methods[span.location.method] = (methods[span.location.method] ?? 0) + 1;
      else unlocatedPredicted++;
    }
    unlocatedGold += score.gold.filter((span) => !span.location).length;
  }
  const withEvidence = scores.filter((score) => score.evidenceF1 !== null);
  return {
    n: scores.length,
    missing: scores.filter((score) => !score.predicted).length,
    spanScored: scored.length,
    span_precision: mean(scored.map((s) => s.precision)),
    span_recall: mean(scored.map((s) => s.recall)),
    span_f1: mean(scored.map((s) => s.f1)),
    pooled: spanScore(totals),
    evidence_f1:
      withEvidence.length > 0
        ? withEvidence.reduce((sum, score) => sum + (score.evidenceF1 ?? 0), 0) /
          withEvidence.length
        : null,
    unlocated: { predicted: unlocatedPredicted, gold: unlocatedGold },
    methods,
  };
}

/** Every question of a dataset against a map of predictions (absent: no row for it). */
export function scoreDataset(
  questions: readonly EvidenceQuestion[],
  predictions: ReadonlyMap<string, readonly EvidenceSpan[]>,
  papersOf: (question: EvidenceQuestion) => EvidencePaper[],
  locate?: LocateOptions,
): { scores: QuestionScore[]; summary: DatasetScore } {
  const indexes = new Map<EvidencePaper, PaperIndex>();
  const scores = questions.map((question) =>
    scoreQuestion(question, predictions.get(question.id) ?? null, {
      papers: papersOf(question),
      indexes,
      ...(locate ? { locate } : {}),
    }),
  );
  return { scores, summary: summariseScores(scores) };
}
