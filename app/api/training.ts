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
        /** The workspace dataset the file was written from (datasets.splitFile), when it was. */
        name: z.string().optional(),
        multiPaper: z.boolean().optional(),
        limit: z.number().int().positive().optional(),
      })
      .optional(),
    /** The workspace rollouts are stored in (and paper sets read from); the app fills in its own. */
    workspace: z.string().optional(),
    /** Sampling temperature of the rollouts: GRPO needs different rollouts of one question. */
    temperature: z.number().positive().max(2).default(1),
    /** The system prompt: the long one (the paper's), or the short one that fits a small model. */
    promptStyle: z.enum(['long', 'short']).default('long'),
    /**
     * The sampler: the context it keeps (tokens, at most the model's) and how many rollouts it
     * decodes at once; absent, the model's whole context and 4.
     */
    sampling: z
      .object({
        context: z.number().int().positive().optional(),
        batch: z.number().int().positive().optional(),
      })
      .strict()
      .optional(),
    /** Turns scored per forward/backward pass in a GRPO step (memory against speed; 16 absent). */
    microBatch: z.number().int().positive().optional(),
    steps: z.number().int().positive().default(100),
    /**
     * Validation without training: every `every` steps (and on the last), `count` held-out questions
     * (the set's last ones) are rolled out `k` times each; pass@k and the mean reward are logged.
     */
    validation: z
      .object({
        every: z.number().int().positive().default(5),
        k: z.number().int().positive().default(4),
        count: z.number().int().positive().default(8),
      })
      .strict()
      .optional(),
    checkpointEvery: z.number().int().positive().default(10),
    seed: z.number().int().default(0),
    /**
     * Cold-start SFT before GRPO, on an SFT set of the workspace (`rlm-studio dataset sft-set`):
     * its accepted teacher runs, every agent turn an example. Its steps log with phase 'sft'.
     */
    sft: z
      .object({
        set: z.string().min(1),
        epochs: z.number().int().positive().default(2),
        learningRate: z.number().positive().default(1e-4),
        batchSize: z.number().int().positive().default(4),
      })
      .strict()
      .optional(),
  })
  .strict();
export type TrainConfig = z.infer<typeof TrainConfig>;

/** One rollout of a GRPO group as the Train view lists it (opens in the debugger by runId). */
export const GroupRollout = z.object({
  runId: z.string(),
  reward: z.number(),
  advantage: z.number(),
});

/** A figure added after the first metrics files were written: absent (old files) reads as missing. */
const added = z.number().nullable().optional();

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
  /** The mean over groups of each group's reward standard deviation (TRL's reward_std). */
  rewardStd: added,
  /** Groups whose rollouts all scored alike: their advantages are 0, they teach nothing. */
  zeroVarianceShare: added,
  zeroVarianceGroups: added,
  /** Response tokens of each sampled agent turn, and the share of turns cut at the token limit. */
  responseLengthMean: added,
  responseLengthMin: added,
  responseLengthMax: added,
  truncatedShare: added,
  /** Of the trained tokens (response tokens of trained turns): the roots' share and the children's. */
  rootTokenShare: added,
  childTokenShare: added,
  /** Validation steps only: share of held-out questions with a reward > 0 among k samples. */
  passAtK: added,
  validationRewardMean: added,
  /** Wall time of the step's phases, in seconds (validation on the steps that ran it). */
  rolloutSeconds: added,
  rewardSeconds: added,
  backwardSeconds: added,
  optimizerSeconds: added,
  validationSeconds: added,
  groups: z.array(z.object({ questionId: z.string(), rollouts: z.array(GroupRollout) })),
});
export type StepMetrics = z.infer<typeof StepMetrics>;

/** One turn of an agent that got gradient in a step, and its action-token count. */
export const TrainedTurn = z.object({
  turn: z.number().int().nonnegative(),
  tokens: z.number().int(),
});

/** How one agent of a rollout counted in its step's loss. */
export const AgentTraining = z.object({
  agentId: z.string(),
  /** The advantage its turns trained with: the root's, inherited by every child. */
  advantage: z.number(),
  inherited: z.boolean(),
  /** Its turns' summed loss weight relative to the root's (1/k for each of k children, ...). */
  weight: z.number(),
  /** The loss weight of each of its action tokens. */
  tokenWeight: z.number(),
  trainedTurns: z.array(TrainedTurn),
});
export type AgentTraining = z.infer<typeof AgentTraining>;

/** One rollout of a GRPO step as the trainer used it (a line of the job's rollouts/step-N.jsonl). */
export const RolloutTraining = z.object({
  step: z.number().int().positive(),
  questionId: z.string(),
  runId: z.string(),
  reward: z.number(),
  advantage: z.number(),
  agents: z.array(AgentTraining),
  group: z.object({
    mean: z.number(),
    std: z.number(),
    zeroVariance: z.boolean(),
    runIds: z.array(z.string()),
    rewards: z.array(z.number()),
  }),
});
export type RolloutTraining = z.infer<typeof RolloutTraining>;

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

/** A base model the Train view offers: its path (or the demo's spec) and what it is. */
export const BaseModel = z.object({
  path: z.string(),
  label: z.string(),
  format: z.enum(['hugging-face', 'llama2c', 'demo']),
  /** Under <workspace>/models, named by an earlier job, or the built-in demo. */
  source: z.enum(['workspace', 'job', 'demo']),
});
export type BaseModel = z.infer<typeof BaseModel>;

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
  'train.rollout': {
    summary:
      'How one rollout of a job was trained: reward, advantage and weight per agent, trained turns, its group.',
    request: z
      .object({ jobId, runId: z.string().min(1), step: z.number().int().positive().optional() })
      .strict(),
    response: z.object({ rollout: RolloutTraining }),
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
  'train.models': {
    summary:
      'Base models the workspace knows: model folders and llama2.c files under <workspace>/models, those earlier jobs named, and the toy:bigram demo.',
    request: z.object({}).strict(),
    response: z.object({ models: z.array(BaseModel) }),
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
