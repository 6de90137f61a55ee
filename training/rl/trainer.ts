// The GRPO training loop: batches of questions in a seeded order, one grpoStep each, metrics
// appended as steps end, checkpoints every N steps and when stopped. Started again on the same
// folder it resumes from the last complete checkpoint with the metrics history it had there.
import type { StepMetrics, TrainConfig } from '../../app/api/index.ts';
import { grpoStep, mixSeed, type GrpoDeps } from './grpo-step.ts';
import { JobFiles } from './job-files.ts';

export interface TrainJobOptions<Q extends { id: string }> extends GrpoDeps<Q> {
  questions: readonly Q[];
  config: GrpoDeps<Q>['config'] & Pick<TrainConfig, 'batchSize' | 'steps' | 'checkpointEvery'>;
  dir: string;
  /** Aborting stops after the step in progress, with a checkpoint: a pause. */
  signal?: AbortSignal;
  onStep?: (metrics: StepMetrics) => void;
}

export interface TrainJobResult {
  /** Steps done in all, this call and the ones it resumed. */
  steps: number;
  resumedFrom: number | null;
  stopped: boolean;
  metrics: StepMetrics[];
}

export class TrainingInputError extends Error {
  override name = 'TrainingInputError';
}

export async function runGrpoJob<Q extends { id: string }>(
  options: TrainJobOptions<Q>,
): Promise<TrainJobResult> {
  const { config, questions, policy } = options;
  if (questions.length === 0) throw new TrainingInputError('the training set has no questions');
  const now = options.now ?? Date.now;
  const files = new JobFiles(options.dir);
  const state = await files.readState();
  if (state) await policy.loadCheckpoint(state.checkpoint);
  // Metrics logged after the checkpoint (a kill mid-way) go: those steps run again. A job killed
  // before its first checkpoint starts over from step 1.
  const metrics = await files.rewindTo(state?.step ?? 0);
  const first = (state?.step ?? 0) + 1;
  const elapsedBefore = metrics.at(-1)?.elapsedMs ?? 0;
  const began = now();
  let stopped = false;
  for (let step = first; step <= config.steps; step++) {
    if (options.signal?.aborted) {
      stopped = true;
      break;
    }
    const figures = await grpoStep(options, batchFor(questions, config, step), step);
    const at = now();
    const line: StepMetrics = {
      step,
      phase: 'grpo',
      at,
      elapsedMs: elapsedBefore + (at - began),
      ...figures,
    };
    await files.appendMetrics(line);
    metrics.push(line);
    options.onStep?.(line);
    const pausing = options.signal?.aborted === true;
    if (step % config.checkpointEvery === 0 || step === config.steps || pausing) {
      await policy.saveCheckpoint(files.checkpointDir(step));
      await files.commitCheckpoint(step);
    }
  }
  return {
    steps: metrics.at(-1)?.step ?? 0,
    resumedFrom: state?.step ?? null,
    stopped,
    metrics,
  };
}

/** The questions of `step` (1-based): each epoch walks a fresh seeded permutation of the set. */
export function batchFor<Q>(
  questions: readonly Q[],
  config: Pick<TrainConfig, 'batchSize' | 'seed'>,
  step: number,
): Q[] {
  const n = questions.length;
  const size = Math.min(config.batchSize, n);
  const batch: Q[] = [];
  for (let k = 0; k < size; k++) {
    const position = (step - 1) * size + k;
    const epoch = Math.floor(position / n);
    const order = permutation(n, mixSeed(config.seed, epoch));
    const question = questions[order[position % n] ?? 0];
    if (question !== undefined) batch.push(question);
  }
  return batch;
}

function permutation(n: number, seed: number): number[] {
  const order = Array.from({ length: n }, (_, i) => i);
  let state = seed || 1;
  for (let i = n - 1; i > 0; i--) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    const j = (state >>> 0) % (i + 1);
    [order[i], order[j]] = [order[j] ?? 0, order[i] ?? 0];
  }
  return order;
}
