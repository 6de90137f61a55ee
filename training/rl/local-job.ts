// A GRPO job on a real local model, after cold-start SFT on an SFT set when the config names one:
// questions from an evidence dataset, rollouts as ordinary runs of the job's workspace sampled
// from the policy as it is now (its LoRA merged into the weights after every step; each rollout
// with its own seed), rewards from app/evidence, the policy trained through the engine. The
// engine the rollouts run on (papers, runs, the REPL) is composed by whoever starts the job
// (host/cli/train-job-command.ts), which hands its opener in.
import type { StepMetrics, TrainConfig } from '../../app/api/index.ts';
import {
  loadDataset,
  materialiseDatasetPapers,
  paperLookup,
  RubricJudge,
} from '../../app/evidence/index.ts';
import type { TrainerStart } from './trainer-start.ts';
import { createProvider, type Provider, type ProviderFactory } from '../../app/models/index.ts';
import type { PaperLibrary } from '../../app/papers/index.ts';
import type { RunService } from '../../app/rlm/index.ts';
import { join } from 'node:path';
import {
  openWorkspace,
  SftSetStore,
  type RunStore,
  type Workspace,
} from '../../app/store/index.ts';
import { loadLocalModel, LoraPolicy } from '../engine/index.ts';
import {
  adaptersOf,
  policySampler,
  policySpec,
  samplingFollows,
  samplingWindow,
} from './policy-sampler.ts';
import { rlmEnvironment } from './rlm-rollouts.ts';
import { runGrpoJob, TrainingInputError, type TrainJobResult } from './trainer.ts';
import { JobFiles } from './job-files.ts';
import { runSftJob, selectSftTurns, sftStepCount } from './sft.ts';

/** What a job's rollouts run on: the engine over the job's workspace. */
export interface RolloutEngine {
  papers: PaperLibrary;
  runs: RunService;
  runStore: RunStore;
  /** Makes a provider from a spec, as runs do (the judge's, when it names no saved endpoint). */
  providers: (spec: string) => Provider | Promise<Provider>;
  dispose(): Promise<void>;
}

/** Composes the engine over a workspace, with extra model schemes (the policy's). */
export type OpenRolloutEngine = (
  workspace: Workspace,
  providers: Readonly<Record<string, ProviderFactory>>,
) => RolloutEngine;

export interface LocalJobOptions {
  config: TrainConfig;
  openEngine: OpenRolloutEngine;
  dir: string;
  signal?: AbortSignal;
  onStep?: (metrics: StepMetrics) => void;
  /** The judge's saved endpoint as the app resolved it (its vault is not readable here). */
  judge?: TrainerStart['judge'];
}

/**
 * The rubric judge's model: the saved endpoint the app resolved, with its key and without the
 * environment (as the app runs a saved endpoint), else the spec as this engine makes it.
 */
export async function judgeProvider(
  spec: string,
  resolved: TrainerStart['judge'],
  providers: (spec: string) => Provider | Promise<Provider>,
): Promise<Provider> {
  if (resolved) return createProvider(resolved.spec, { env: {}, apiKey: resolved.apiKey });
  return providers(spec);
}

export async function runLocalJob(options: LocalJobOptions): Promise<TrainJobResult> {
  const { config } = options;
  if (!config.dataset) {
    throw new TrainingInputError('a job on a real model needs a dataset (config.dataset)');
  }
  if (!config.workspace) {
    throw new TrainingInputError('a job on a real model needs a workspace to store its rollouts');
  }
  const local = await loadLocalModel(config.baseModel);
  const lora = {
    rank: config.lora.rank,
    alpha: config.lora.alpha,
    targets: config.lora.targetModules,
  };
  const sampling = {
    temperature: config.temperature,
    maxTokens: config.maxTokensPerTurn,
    ...(config.sampling?.context ? { context: config.sampling.context } : {}),
    ...(config.sampling?.batch ? { maxBatch: config.sampling.batch } : {}),
  };
  const policy = new LoraPolicy(local, {
    lora,
    loraInit: { seed: config.seed },
    window: samplingWindow(local, sampling),
  });
  const sampler = await policySampler(local, adaptersOf(policy), lora, sampling);

  const workspace = openWorkspace(config.workspace);
  const engine = options.openEngine(workspace, {
    policy: (target) => sampler.provider(target),
  });
  try {
    const dataset = await loadDataset(config.dataset.path, config.dataset.format, {
      ...(config.dataset.multiPaper ? { multiPaper: true } : {}),
    });
    await materialiseDatasetPapers(engine.papers, dataset, config.dataset.path);
    const questions = dataset.questions.slice(0, config.dataset.limit ?? dataset.questions.length);
    const papersOf = paperLookup(dataset, engine.papers);
    const judge =
      config.reward === 'rubric' && config.judge
        ? new RubricJudge({
            provider: await judgeProvider(config.judge, options.judge, engine.providers),
          })
        : undefined;
    const environment = rlmEnvironment({
      runs: engine.runs,
      store: engine.runStore,
      model: (rollout) => policySpec(rollout.seed),
      budgets: {
        maxTurns: config.maxTurns,
        maxDepth: config.maxDepth,
        maxChildrenPerCall: Math.max(1, config.maxChildren),
      },
      promptStyle: config.promptStyle,
      papersOf,
      judge,
    });
    if (config.sft) {
      await sftPhase(config.sft, config.seed, policy, workspace, engine.runStore, options);
      if (options.signal?.aborted)
        return { steps: 0, resumedFrom: null, stopped: true, metrics: [] };
      // GRPO's rollouts sample from the policy SFT left (the sampler holds merged weights).
      await sampler.refresh();
    }
    return await runGrpoJob({
      policy: samplingFollows(policy, () => sampler.refresh()),
      questions,
      ...environment,
      config,
      ...(config.microBatch ? { microBatch: config.microBatch } : {}),
      dir: options.dir,
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.onStep ? { onStep: options.onStep } : {}),
    });
  } finally {
    await engine.dispose();
    workspace.close();
    policy.dispose();
  }
}

/**
 * Cold-start SFT in the job's `sft/` folder, once: a job started again after it finished loads its
 * checkpoint (GRPO then resumes from its own, when it has one); one paused in SFT goes on after
 * its last SFT checkpoint.
 */
async function sftPhase(
  sft: NonNullable<TrainConfig['sft']>,
  seed: number,
  policy: LoraPolicy,
  workspace: Workspace,
  runStore: RunStore,
  options: LocalJobOptions,
): Promise<void> {
  const files = new JobFiles(join(options.dir, 'sft'));
  const state = await files.readState();
  if (state && (await files.isDone())) {
    await policy.loadCheckpoint(state.checkpoint);
    return;
  }
  const set = new SftSetStore(workspace.db).get(sft.set);
  const runs = set.runs.flatMap((run) =>
    run.accepted && run.runId
      ? [{ runId: run.runId, events: runStore.events(run.runId), spanF1: run.spanF1 ?? 0 }]
      : [],
  );
  const { turns } = selectSftTurns(runs, policy);
  if (state) {
    await policy.loadCheckpoint(state.checkpoint);
    // A folder from before SFT checkpointed on pause holds only its final checkpoint.
    if (state.step >= sftStepCount(turns.length, sft.epochs, sft.batchSize)) return;
  }
  const after = state?.step ?? 0;
  const job = new JobFiles(options.dir);
  // The lines after the last SFT checkpoint (steps it will take again) go.
  await job.rewindTo(0, { sftThrough: after });
  await files.rewindTo(0, { sftThrough: after });
  await runSftJob({
    alsoLogTo: job,
    policy,
    turns,
    epochs: sft.epochs,
    batchSize: sft.batchSize,
    learningRate: sft.learningRate,
    seed,
    resumeAfter: after,
    checkpointEvery: options.config.checkpointEvery,
    dir: files.dir,
    ...(options.onStep ? { onStep: options.onStep } : {}),
    signal: options.signal,
  });
}
