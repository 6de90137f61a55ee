// The `toy:bigram` job as `rlm-studio train-job` runs it: GRPO on the bigram table, each rollout
// stored as an ordinary run of the job's workspace (config.workspace) so the Train view's group
// links open it in the debugger, as a real job's rollouts do. Run ids carry the job's folder name,
// so two jobs of one workspace never collide; a step run again after a resume replaces its runs.
import { basename } from 'node:path';
import type { StepMetrics, TrainConfig } from '../../app/api/index.ts';
import { openWorkspace, RunStore } from '../../app/store/index.ts';
import type { RolloutOutcome } from './grpo-step.ts';
import {
  TablePolicy,
  TOY_MODEL,
  toyEnvironment,
  toyQuestions,
  toyValidationQuestions,
  type ToyQuestion,
  type ToyRolloutRequest,
} from './toy-task.ts';
import { runGrpoJob, type TrainJobResult } from './trainer.ts';

export interface ToyJobOptions {
  config: TrainConfig;
  dir: string;
  signal?: AbortSignal;
  onStep?: (metrics: StepMetrics) => void;
  now?: () => number;
}

/** A run id unique to the job, the step, the question and the rollout. */
export function toyRunId(
  jobDir: string,
  question: ToyQuestion,
  request: ToyRolloutRequest,
): string {
  const kind = request.validation ? 'val' : 'r';
  return `toy-${basename(jobDir)}-s${request.step}-${question.id}-${kind}${request.index}`;
}

export async function runToyJob(options: ToyJobOptions): Promise<TrainJobResult> {
  const { config, dir } = options;
  const policy = new TablePolicy('xyzab');
  const environment = toyEnvironment(policy, config.temperature, {
    runId: (question, request) => toyRunId(dir, question, request),
    ...(options.now ? { now: options.now } : {}),
  });
  const workspace = config.workspace ? openWorkspace(config.workspace) : null;
  const store = workspace ? new RunStore(workspace.db) : null;
  try {
    return await runGrpoJob({
      policy,
      questions: toyQuestions,
      validationQuestions: toyValidationQuestions,
      ...environment,
      rollout: async (question, request) => {
        const outcome = await environment.rollout(question, request);
        if (store) storeRollout(store, outcome);
        return outcome;
      },
      config,
      dir,
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.onStep ? { onStep: options.onStep } : {}),
      ...(options.now ? { now: options.now } : {}),
    });
  } finally {
    workspace?.close();
  }
}

function storeRollout(store: RunStore, outcome: RolloutOutcome): void {
  const started = outcome.events[0];
  // The same id again is this job's step run again after a resume: the newer rollout replaces it.
  store.remove(outcome.runId);
  store.insertRun(
    {
      id: outcome.runId,
      question: started?.kind === 'run.started' ? started.question : outcome.runId,
      set: 'toy',
      model: TOY_MODEL,
      source: 'training',
      createdAt: started?.at ?? Date.now(),
    },
    outcome.events,
  );
}
