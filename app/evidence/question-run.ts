// One question of a batch eval: its RLM run (through the run service), the answer located and
// scored, the judge's verdict, the run's tokens and cost, all as the row the eval store keeps.
// Returns null when the eval was canceled under it, so no half-made row is stored.
import type { EvalResult, EvalStartRequest } from '../api/index.ts';
import type { StartedRun, StartRunRequest } from '../rlm/index.ts';
import type { RunStore } from '../store/index.ts';
import type { RubricJudge } from './judge.ts';
import type { PaperIndex } from './locate.ts';
import { answerSpans } from './predictions.ts';
import type { EvidencePaper, EvidenceQuestion } from './question.ts';
import { scoreQuestion } from './score.ts';

export interface QuestionRunContext {
  evalId: string;
  request: EvalStartRequest;
  runs: { start(request: StartRunRequest): Promise<StartedRun> };
  runStore: RunStore;
  judge: RubricJudge | null;
  papersOf: (question: EvidenceQuestion) => EvidencePaper[];
  indexes: Map<EvidencePaper, PaperIndex>;
  signal: AbortSignal;
  /** Runs in flight, so a cancel reaches them. */
  activeRuns: Set<StartedRun>;
  now: () => number;
}

export function errorInfo(error: unknown): { name: string; message: string } {
  return error instanceof Error
    ? { name: error.name, message: error.message }
    : { name: 'Error', message: String(error) };
}

interface RunPart {
  runId: string | null;
  answer: unknown;
  status: 'done' | 'failed';
  error: { name: string; message: string } | null;
}

async function runRlm(
  context: QuestionRunContext,
  question: EvidenceQuestion,
): Promise<RunPart | null> {
  const { request } = context;
  try {
    const run = await context.runs.start({
      set: question.set,
      question: question.question,
      model: request.model,
      ...(question.paperIds ? { paperIds: question.paperIds } : {}),
      ...(request.budgets ? { budgets: request.budgets } : {}),
    });
    context.activeRuns.add(run);
    const outcome = await run.finished.finally(() => context.activeRuns.delete(run));
    if (context.signal.aborted && outcome.status === 'canceled') return null;
    return {
      runId: run.runId,
      answer: outcome.answer,
      status: outcome.status === 'done' ? 'done' : 'failed',
      error: outcome.error,
    };
  } catch (failure) {
    return { runId: null, answer: null, status: 'failed', error: errorInfo(failure) };
  }
}

export async function runQuestion(
  context: QuestionRunContext,
  question: EvidenceQuestion,
  seq: number,
): Promise<EvalResult | null> {
  const started = performance.now();
  const part = await runRlm(context, question);
  if (!part) return null;
  const latencyMs = performance.now() - started;
  const spans = answerSpans(part.answer);
  const threshold = context.request.threshold;
  const score = scoreQuestion(question, spans, {
    papers: context.papersOf(question),
    indexes: context.indexes,
    ...(threshold !== undefined ? { locate: { threshold } } : {}),
  });
  const verdict = context.judge
    ? await context.judge.judge(
        {
          question: question.question,
          gold: question.gold.map((span) => span.text),
          predicted: spans.map((span) => span.text),
        },
        context.signal,
      )
    : null;
  if (context.signal.aborted && verdict?.failures.includes('canceled')) return null;
  const { runStore } = context;
  const run = part.runId !== null && runStore.has(part.runId) ? runStore.get(part.runId) : null;
  const runCost = run ? run.costUsd : 0;
  const result: EvalResult = {
    evalId: context.evalId,
    questionId: question.id,
    seq,
    runId: part.runId,
    status: part.status,
    question: question.question,
    set: question.set,
    paperIds: question.paperIds ?? context.papersOf(question).map((paper) => paper.id),
    answer: part.answer,
    spans: score.spans,
    gold: score.gold,
    spanPrecision: score.span?.precision ?? null,
    spanRecall: score.span?.recall ?? null,
    spanF1: score.span?.f1 ?? null,
    evidenceF1: score.evidenceF1,
    rubric: verdict?.reward ?? null,
    judge: verdict,
    latencyMs,
    inputTokens: (run?.inputTokens ?? 0) + (verdict?.inputTokens ?? 0),
    outputTokens: (run?.outputTokens ?? 0) + (verdict?.outputTokens ?? 0),
    costUsd:
      runCost === null || (verdict !== null && verdict.costUsd === null)
        ? null
        : runCost + (verdict?.costUsd ?? 0),
    error: part.error,
    finishedAt: context.now(),
  };
  // The run's own score, so the Runs view can sort and filter evaluated runs.
  if (run && part.runId !== null) runStore.setScore(part.runId, result.rubric ?? result.spanF1);
  return result;
}
