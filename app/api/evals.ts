// Batch evaluation over an evidence dataset: an eval runs the RLM on every question with a
// concurrency limit, scores each answer (span F1, QASPER Evidence-F1, the rubric judge) and keeps
// one result per question, so a stopped eval resumes where it stopped.
import { z } from 'zod';
import { Budgets, ErrorInfo } from './runs.ts';

export const EvalStatus = z.enum(['running', 'done', 'failed', 'canceled', 'interrupted']);
export type EvalStatus = z.infer<typeof EvalStatus>;

export const DatasetFormat = z.enum(['ours', 'skyrl', 'qasper']);
export type DatasetFormatName = z.infer<typeof DatasetFormat>;

export const EvalOptions = z
  .object({
    multiPaper: z.boolean().optional(),
    limit: z.number().int().min(1).optional(),
    concurrency: z.number().int().min(1).max(256).optional(),
    threshold: z.number().gt(0).max(1).optional(),
    budgets: Budgets.partial().optional(),
  })
  .strict();
export type EvalOptions = z.infer<typeof EvalOptions>;

export const EvalSummary = z.object({
  id: z.string(),
  createdAt: z.number(),
  updatedAt: z.number(),
  status: EvalStatus,
  datasetPath: z.string(),
  datasetName: z.string(),
  format: DatasetFormat,
  options: EvalOptions,
  model: z.string(),
  judge: z.string().nullable(),
  total: z.number().int(),
  done: z.number().int(),
  failed: z.number().int(),
  error: ErrorInfo.nullable(),
});
export type EvalSummary = z.infer<typeof EvalSummary>;

export const LocatedSpan = z.object({
  paperId: z.string().nullable(),
  text: z.string(),
  location: z
    .object({
      paperId: z.string(),
      start: z.number().int(),
      end: z.number().int(),
      method: z.enum(['exact', 'normalised', 'placeholders', 'approximate']),
      similarity: z.number(),
    })
    .nullable(),
});
export type LocatedSpan = z.infer<typeof LocatedSpan>;

export const JudgeVerdict = z.object({
  status: z.enum(['ok', 'failed']),
  precision: z.number().int().nullable(),
  recall: z.number().int().nullable(),
  reasoning: z.string(),
  reward: z.number(),
  failures: z.array(z.string()),
  attempts: z.number().int(),
  inputTokens: z.number().int(),
  outputTokens: z.number().int(),
  costUsd: z.number().nullable(),
  template: z.string(),
});
export type JudgeVerdictInfo = z.infer<typeof JudgeVerdict>;

export const EvalResult = z.object({
  evalId: z.string(),
  questionId: z.string(),
  seq: z.number().int(),
  runId: z.string().nullable(),
  status: z.enum(['done', 'failed']),
  question: z.string(),
  /** The question's set and papers, so a view can open them. */
  set: z.string(),
  paperIds: z.array(z.string()),
  answer: z.unknown(),
  spans: z.array(LocatedSpan),
  gold: z.array(LocatedSpan),
  spanPrecision: z.number().nullable(),
  spanRecall: z.number().nullable(),
  spanF1: z.number().nullable(),
  evidenceF1: z.number().nullable(),
  rubric: z.number().nullable(),
  judge: JudgeVerdict.nullable(),
  latencyMs: z.number(),
  inputTokens: z.number().int(),
  outputTokens: z.number().int(),
  costUsd: z.number().nullable(),
  error: ErrorInfo.nullable(),
  finishedAt: z.number(),
});
export type EvalResult = z.infer<typeof EvalResult>;

export const EvalReport = z.object({
  total: z.number().int(),
  done: z.number().int(),
  failed: z.number().int(),
  meanRubric: z.number().nullable(),
  meanSpanF1: z.number().nullable(),
  /** QASPER only; unfinished questions count 0, as the official evaluator counts missing ones. */
  evidenceF1: z.number().nullable(),
  latencyMedianMs: z.number().nullable(),
  latencyP90Ms: z.number().nullable(),
  inputTokens: z.number().int(),
  outputTokens: z.number().int(),
  costUsd: z.number().nullable(),
});
export type EvalReport = z.infer<typeof EvalReport>;

export const EvalStartRequest = z
  .object({
    dataset: z.string().min(1),
    format: DatasetFormat,
    model: z.string().min(1),
    judge: z.string().min(1).optional(),
    fresh: z.boolean().optional(),
  })
  .extend(EvalOptions.shape)
  .strict();
export type EvalStartRequest = z.infer<typeof EvalStartRequest>;

export const evalCommands = {
  'evals.datasets': {
    summary: 'Datasets used by earlier evals and the shared QASPER test set when present.',
    request: z.object({}).strict(),
    response: z.object({
      datasets: z.array(
        z.object({
          path: z.string(),
          format: DatasetFormat,
          name: z.string(),
          lastUsed: z.number().nullable(),
        }),
      ),
    }),
  },
  'evals.list': {
    summary: 'Every eval of the workspace, newest first, with its progress.',
    request: z.object({}).strict(),
    response: z.object({ evals: z.array(EvalSummary) }),
  },
  'evals.start': {
    summary:
      'Starts (or resumes: same dataset, format, variant, model and judge) an eval; progress streams as eval.progress.',
    request: EvalStartRequest,
    response: z.object({
      evalId: z.string(),
      total: z.number().int(),
      alreadyDone: z.number().int(),
    }),
  },
  'evals.get': {
    summary: "An eval's summary, report and per-question results.",
    request: z.object({ evalId: z.string() }).strict(),
    response: z.object({ eval: EvalSummary, report: EvalReport, results: z.array(EvalResult) }),
  },
  'evals.cancel': {
    summary: 'Stops a running eval; finished questions stay, a later start resumes it.',
    request: z.object({ evalId: z.string() }).strict(),
    response: z.object({ canceled: z.boolean() }),
  },
} as const;

export const evalEvents = [
  z.object({
    kind: z.literal('eval.progress'),
    at: z.number(),
    evalId: z.string(),
    done: z.number().int(),
    total: z.number().int(),
    result: EvalResult,
  }),
  z.object({
    kind: z.literal('eval.finished'),
    at: z.number(),
    evalId: z.string(),
    status: EvalStatus,
    report: EvalReport,
  }),
] as const;
