// Evidence datasets kept in the workspace: questions over groups of a paper set's papers, each with
// gold spans located in the papers' text and where it came from (a teacher model's generation, an
// import, a hand edit). Generation groups similar papers, asks a teacher for questions per group
// and keeps what it can verify; a group's outcome is stored once it is done, so a stopped
// generation resumes at the next group.
import { z } from 'zod';
import { ErrorInfo } from './runs.ts';

/** A gold span: a range of the paper's text as the REPL sees it, and the text there. */
export const GoldSpan = z
  .object({
    paperId: z.string().min(1),
    start: z.number().int().min(0),
    end: z.number().int().min(0),
    text: z.string().min(1),
  })
  .strict();
export type GoldSpan = z.infer<typeof GoldSpan>;

export const Provenance = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('teacher'),
    teacher: z.string(),
    /** The prompt template's file, version included (dataset-questions.v1.md). */
    prompt: z.string(),
    at: z.number(),
  }),
  z.object({ kind: z.literal('imported'), format: z.string(), from: z.string(), at: z.number() }),
  z.object({ kind: z.literal('hand'), at: z.number() }),
]);
export type Provenance = z.infer<typeof Provenance>;

export const QuestionStatus = z.enum(['pending', 'approved', 'rejected']);
export type QuestionStatus = z.infer<typeof QuestionStatus>;

export const DatasetQuestion = z.object({
  id: z.string(),
  question: z.string(),
  set: z.string(),
  paperIds: z.array(z.string()),
  gold: z.array(GoldSpan),
  split: z.enum(['train', 'validation']),
  /** The group of similar papers it was written over (generation), or null. */
  group: z.string().nullable(),
  status: QuestionStatus,
  /** Where it came from first; `editedAt` once a person changed it. */
  provenance: Provenance,
  editedAt: z.number().nullable(),
});
export type DatasetQuestion = z.infer<typeof DatasetQuestion>;

export const GenerationOptions = z
  .object({
    set: z.string().min(1),
    teacher: z.string().min(1),
    /** Groups to write (default: as many as the set has papers for). */
    groups: z.number().int().min(1).optional(),
    groupSize: z.number().int().min(1).max(50).default(10),
    perGroup: z.number().int().min(1).max(20).default(3),
    seed: z.number().int().default(0),
    /** Share of groups kept for validation (by group, so no paper group is in both splits). */
    validation: z.number().min(0).max(1).default(0.2),
    /** Characters of each paper's text the teacher reads (its start). */
    maxCharsPerPaper: z.number().int().min(500).default(12_000),
  })
  .strict();
export type GenerationOptions = z.infer<typeof GenerationOptions>;

/** Why a candidate (or one of its spans) was not kept. */
export const Dropped = z.object({
  group: z.string(),
  question: z.string().nullable(),
  reason: z.string(),
});
export type Dropped = z.infer<typeof Dropped>;

export const GroupOutcome = z.object({
  group: z.string(),
  paperIds: z.array(z.string()),
  split: z.enum(['train', 'validation']),
  status: z.enum(['done', 'failed']),
  kept: z.number().int(),
  dropped: z.array(Dropped),
  /** The teacher's reply as it came (nothing generated is lost). */
  reply: z.string().nullable(),
  error: ErrorInfo.nullable(),
  inputTokens: z.number().int(),
  outputTokens: z.number().int(),
  costUsd: z.number().nullable(),
});
export type GroupOutcome = z.infer<typeof GroupOutcome>;

/** How a generation grouped the papers: the map's embeddings when a model is set, else TF-IDF. */
export const Grouping = z.object({
  method: z.enum(['embeddings', 'tfidf']),
  /** The embedding model's name (embeddings). */
  model: z.string().nullable(),
  /** Why embeddings were wanted (a model is set) and TF-IDF grouped instead. */
  fallback: ErrorInfo.nullable(),
});
export type Grouping = z.infer<typeof Grouping>;

/** How the papers were grouped, in words (the CLI prints it, the Datasets view shows it). */
export function describeGrouping(g: Grouping): string {
  if (g.method === 'embeddings') return `papers grouped by the map's embeddings (${g.model ?? ''})`;
  return g.fallback
    ? `papers grouped by TF-IDF: the embedding model failed (${g.fallback.name}: ${g.fallback.message})`
    : 'papers grouped by TF-IDF (no embedding model is set in Settings)';
}

export const DatasetSummary = z.object({
  id: z.string(),
  name: z.string(),
  createdAt: z.number(),
  updatedAt: z.number(),
  /** The generation's options, when it was generated. */
  generation: GenerationOptions.nullable(),
  questions: z.number().int(),
  train: z.number().int(),
  validation: z.number().int(),
  approved: z.number().int(),
  rejected: z.number().int(),
  groupsDone: z.number().int(),
  groupsPlanned: z.number().int(),
  costUsd: z.number().nullable(),
});
export type DatasetSummary = z.infer<typeof DatasetSummary>;

export const QuestionFilterRequest = z
  .object({
    split: z.enum(['train', 'validation']).optional(),
    group: z.string().optional(),
    status: QuestionStatus.optional(),
    source: z.enum(['teacher', 'imported', 'hand']).optional(),
    text: z.string().max(1000).optional(),
  })
  .strict();

const DatasetRef = z.object({ dataset: z.string().min(1) }).strict();
const Split = z.enum(['train', 'validation']);

/** A teacher run an SFT set considered: accepted, or left out with the reason. */
export const SftSetRun = z.object({
  runId: z.string().nullable(),
  questionId: z.string(),
  spanF1: z.number().nullable(),
  accepted: z.boolean(),
  /** Why it was left out (null when accepted). */
  reason: z.string().nullable(),
});
export type SftSetRun = z.infer<typeof SftSetRun>;

/**
 * The teacher runs of an eval over a dataset's train split that cold-start SFT trains on: every run
 * considered, through the write-up's filter (finished, no REPL error, span F1 above 0), then a cap.
 */
export const SftSetSummary = z.object({
  id: z.string(),
  name: z.string(),
  /** The dataset whose questions the teacher answered. */
  dataset: z.string(),
  evalId: z.string(),
  cap: z.number().int(),
  createdAt: z.number(),
  accepted: z.number().int(),
  considered: z.number().int(),
});
export type SftSetSummary = z.infer<typeof SftSetSummary>;
export const SftSet = SftSetSummary.extend({ runs: z.array(SftSetRun) });
export type SftSet = z.infer<typeof SftSet>;
const SftSetRef = z.object({ set: z.string().min(1) }).strict();

export const datasetCommands = {
  'datasets.list': {
    summary: "The workspace's evidence datasets, most recently changed first.",
    request: z.object({}).strict(),
    response: z.object({ datasets: z.array(DatasetSummary) }),
  },
  'datasets.get': {
    summary:
      "A dataset's summary and its questions (filtered by split, group, approval, source, text).",
    request: DatasetRef.extend({ filter: QuestionFilterRequest.default({}) }).strict(),
    response: z.object({ dataset: DatasetSummary, questions: z.array(DatasetQuestion) }),
  },
  'datasets.report': {
    summary:
      "A generated dataset's group outcomes: each teacher reply, what was kept, every reason a candidate was dropped.",
    request: DatasetRef,
    response: z.object({ outcomes: z.array(GroupOutcome) }),
  },
  'datasets.generate': {
    summary:
      'Starts (or resumes: same name and options) a generation; progress streams as dataset.progress, its end as dataset.finished.',
    request: z.object({ name: z.string().min(1).max(200), options: GenerationOptions }).strict(),
    response: z.object({ dataset: DatasetSummary, grouping: Grouping }),
  },
  'datasets.cancel': {
    summary: 'Stops a running generation at the next group edge; a later generate resumes it.',
    request: DatasetRef,
    response: z.object({ canceled: z.boolean() }),
  },
  'datasets.rename': {
    summary: 'Renames a dataset (names are unique).',
    request: DatasetRef.extend({ name: z.string().min(1).max(200) }).strict(),
    response: z.object({ dataset: DatasetSummary }),
  },
  'datasets.delete': {
    summary: 'Deletes a dataset and its questions.',
    request: DatasetRef,
    response: z.object({ deleted: z.boolean() }),
  },
  'datasets.import': {
    summary:
      'Imports a QASPER, SkyRL or our dataset file (carried papers into the set its questions name; gold spans located).',
    request: z
      .object({
        path: z.string().min(1),
        format: z.enum(['ours', 'skyrl', 'qasper']),
        name: z.string().min(1).max(200),
      })
      .strict(),
    response: z.object({ dataset: DatasetSummary, issues: z.array(z.string()) }),
  },
  'datasets.export': {
    summary: 'Writes a dataset as JSON lines: SkyRL rows (for the cluster) or ours.',
    request: DatasetRef.extend({
      format: z.enum(['skyrl', 'ours']),
      path: z.string().min(1),
      split: z.enum(['train', 'validation']).optional(),
    }).strict(),
    response: z.object({ rows: z.number().int(), path: z.string() }),
  },
  'datasets.editQuestion': {
    summary:
      "Changes a question's text, gold spans, approval or split; a change of text or spans marks it edited by hand.",
    request: DatasetRef.extend({
      id: z.string().min(1),
      question: z.string().min(1).optional(),
      gold: z.array(GoldSpan).optional(),
      status: QuestionStatus.optional(),
      split: z.enum(['train', 'validation']).optional(),
    }).strict(),
    response: z.object({ question: DatasetQuestion }),
  },
  'datasets.create': {
    summary: 'Creates an empty dataset, for questions written by hand.',
    request: z.object({ name: z.string().trim().min(1).max(200) }).strict(),
    response: z.object({ dataset: DatasetSummary }),
  },
  'datasets.addQuestion': {
    summary:
      "Adds a question written by hand over papers of a set (gold spans, when given, must be the papers' text at their ranges).",
    request: DatasetRef.extend({
      question: z.string().trim().min(1),
      set: z.string().min(1),
      paperIds: z.array(z.string().min(1)).min(1),
      gold: z.array(GoldSpan).default([]),
      split: Split.default('train'),
    }).strict(),
    response: z.object({ question: DatasetQuestion }),
  },
  'datasets.deleteQuestion': {
    summary: 'Removes a question from a dataset.',
    request: DatasetRef.extend({ id: z.string().min(1) }).strict(),
    response: z.object({ deleted: z.boolean() }),
  },
  'datasets.splitFile': {
    summary:
      "Writes a split as our JSON lines in the workspace's datasets folder (the file a training job or a teacher eval reads); the same path each time.",
    request: DatasetRef.extend({ split: Split.default('train') }).strict(),
    response: z.object({ path: z.string(), rows: z.number().int() }),
  },
  'datasets.traces': {
    summary:
      "Runs a teacher RLM over a dataset's split through the eval machinery (the same request resumes); progress streams as eval.progress.",
    request: DatasetRef.extend({
      teacher: z.string().min(1),
      split: Split.default('train'),
      limit: z.number().int().positive().optional(),
      concurrency: z.number().int().min(1).max(16).optional(),
      maxTurns: z.number().int().positive().optional(),
    }).strict(),
    response: z.object({
      evalId: z.string(),
      total: z.number().int(),
      alreadyDone: z.number().int(),
    }),
  },
  'sftSets.list': {
    summary: "The workspace's SFT sets (of one dataset when named), newest first.",
    request: z.object({ dataset: z.string().min(1).optional() }).strict(),
    response: z.object({ sets: z.array(SftSetSummary) }),
  },
  'sftSets.get': {
    summary: 'An SFT set with every run it considered, accepted or left out with the reason.',
    request: SftSetRef,
    response: z.object({ set: SftSet }),
  },
  'sftSets.make': {
    summary:
      "Makes an SFT set from a teacher eval's runs: the write-up's filter (finished, no REPL error, span F1 > 0), then the cap.",
    request: DatasetRef.extend({
      evalId: z.string().min(1),
      name: z.string().trim().min(1).max(200),
      cap: z.number().int().positive().max(10_000).default(32),
    }).strict(),
    response: z.object({ set: SftSet }),
  },
  'sftSets.delete': {
    summary: 'Deletes an SFT set (its runs stay in the workspace).',
    request: SftSetRef,
    response: z.object({ deleted: z.boolean() }),
  },
} as const;

export const datasetEvents = [
  z.object({
    kind: z.literal('dataset.progress'),
    at: z.number(),
    dataset: z.string(),
    groupsDone: z.number().int(),
    groupsPlanned: z.number().int(),
    questions: z.number().int(),
    costUsd: z.number().nullable(),
    outcome: GroupOutcome,
  }),
  z.object({
    kind: z.literal('dataset.finished'),
    at: z.number(),
    dataset: z.string(),
    status: z.enum(['done', 'canceled', 'failed']),
    summary: DatasetSummary.nullable(),
    error: ErrorInfo.nullable(),
  }),
] as const;
