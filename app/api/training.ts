// The training part of the contract: what a fine-tuning job is configured with. Shared by the Train
// view, the local trainer (training/rl) and the cluster export (training/cluster).
import { z } from 'zod';

export const ChildWeighting = z.enum(['subtree-mean', 'sample-one-child', 'token-mean']);
export type ChildWeighting = z.infer<typeof ChildWeighting>;

export const TrainConfig = z
  .object({
    /** A local model folder (Hugging Face layout) or a llama2.c checkpoint. */
    baseModel: z.string().min(1),
    lora: z.object({
      rank: z.number().int().positive().default(8),
      alpha: z.number().positive().default(16),
      targetModules: z.array(z.string()).default(['q_proj', 'k_proj', 'v_proj', 'o_proj']),
    }),
    learningRate: z.number().positive().default(1e-6),
    /** G: root rollouts per question. */
    groupSize: z.number().int().min(2).default(8),
    /** Questions per step. */
    batchSize: z.number().int().positive().default(16),
    beta: z.number().nonnegative().default(0.01),
    clipLow: z.number().positive().default(0.2),
    clipHigh: z.number().positive().default(0.2),
    maxTurns: z.number().int().positive().default(10),
    maxDepth: z.number().int().nonnegative().default(1),
    maxChildren: z.number().int().nonnegative().default(4),
    maxTokensPerTurn: z.number().int().positive().default(1024),
    weighting: ChildWeighting.default('subtree-mean'),
    reward: z.enum(['rubric', 'span-f1']).default('rubric'),
    /** Model spec of the rubric judge (app/models), when the reward is the rubric. */
    judge: z.string().optional(),
    /** The evidence dataset the questions come from (real models; the toy task needs none). */
    dataset: z
      .object({
        path: z.string().min(1),
        format: z.enum(['ours', 'skyrl', 'qasper']),
        multiPaper: z.boolean().optional(),
        limit: z.number().int().positive().optional(),
      })
      .optional(),
    /** The workspace rollouts are stored in (and paper sets read from); the app fills in its own. */
    workspace: z.string().optional(),
    /** Sampling temperature of the rollouts: GRPO needs different rollouts of one question. */
    temperature: z.number().positive().max(2).default(1),
    steps: z.number().int().positive().default(100),
    checkpointEvery: z.number().int().positive().default(10),
    seed: z.number().int().default(0),
  })
  .strict();
export type TrainConfig = z.infer<typeof TrainConfig>;

/** One rollout of a GRPO group as the Train view lists it (opens in the debugger by runId). */
export const GroupRollout = z.object({
  runId: z.string(),
  reward: z.number(),
  advantage: z.number(),
});

/** What one training step logs: one line of the job's metrics.jsonl, one point on each chart. */
export const StepMetrics = z.object({
  step: z.number().int().nonnegative(),
  phase: z.enum(['sft', 'grpo']),
  /** Wall-clock time the step ended (ms since the epoch) and time since the job began. */
  at: z.number(),
  elapsedMs: z.number(),
  loss: z.number(),
  gradNorm: z.number(),
  tokensPerSecond: z.number(),
  entropy: z.number().nullable(),
  rewardMean: z.number().nullable(),
  rewardMin: z.number().nullable(),
  rewardMax: z.number().nullable(),
  precisionMean: z.number().nullable(),
  recallMean: z.number().nullable(),
  kl: z.number().nullable(),
  clipFraction: z.number().nullable(),
  turnsPerRollout: z.number().nullable(),
  childrenPerRollout: z.number().nullable(),
  groups: z.array(z.object({ questionId: z.string(), rollouts: z.array(GroupRollout) })),
});
export type StepMetrics = z.infer<typeof StepMetrics>;

export const TrainJobStatus = z.enum(['running', 'paused', 'done', 'failed']);
export type TrainJobStatus = z.infer<typeof TrainJobStatus>;

/** A local training job as the Train view lists it. */
export const TrainJob = z.object({
  id: z.string(),
  name: z.string(),
  createdAt: z.number(),
  status: TrainJobStatus,
  /** The last step logged, of `config.steps`. */
  step: z.number().int().nonnegative(),
  config: TrainConfig,
  error: z.object({ name: z.string(), message: z.string() }).nullable(),
});
export type TrainJob = z.infer<typeof TrainJob>;

const jobId = z.string().regex(/^[\w-]{1,80}$/, 'a job id');

export const trainCommands = {
  'train.jobs': {
    summary: 'The training jobs of the workspace, newest first.',
    request: z.object({}).strict(),
    response: z.object({ jobs: z.array(TrainJob) }),
  },
  'train.start': {
    summary: 'Starts a local training job in a process of its own; its steps stream as train.step.',
    request: z.object({ name: z.string().trim().min(1).max(120), config: TrainConfig }).strict(),
    response: z.object({ job: TrainJob }),
  },
  'train.metrics': {
    summary: "A job's logged steps, for its charts.",
    request: z.object({ jobId }).strict(),
    response: z.object({ job: TrainJob, metrics: z.array(StepMetrics) }),
  },
  'train.stop': {
    summary: 'Pauses a running job after its current step, with a checkpoint.',
    request: z.object({ jobId }).strict(),
    response: z.object({ stopping: z.boolean() }),
  },
  'train.resume': {
    summary: 'Goes on with a paused or failed job from its last checkpoint.',
    request: z.object({ jobId }).strict(),
    response: z.object({ job: TrainJob }),
  },
} as const;

export const trainEvents = [
  z.object({
    kind: z.literal('train.step'),
    at: z.number(),
    jobId: z.string(),
    metrics: StepMetrics,
  }),
  z.object({ kind: z.literal('train.jobChanged'), at: z.number(), job: TrainJob }),
] as const;
