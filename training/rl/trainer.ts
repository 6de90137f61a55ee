// The GRPO training loop: batches of questions in a seeded order, one grpoStep each, metrics
// appended as steps end, checkpoints every N steps and when stopped. Started again on the same
// folder it resumes from the last complete checkpoint with the metrics history it had there.
import type { StepMetrics, TrainConfig } from '../../app/api/index.ts';
import { grpoStep, mixSeed, type GrpoDeps } from './grpo-step.ts';
import { JobFiles } from './job-files.ts';
import { TrainingInputError } from './training-errors.ts';
import { holdOut, validate, validatesAt, type ValidationFigures } from './validation.ts';

export interface TrainJobOptions<Q extends { id: string }> extends GrpoDeps<Q> {
  questions: readonly Q[];
  config: GrpoDeps<Q>['config'] &
    Pick<TrainConfig, 'batchSize' | 'steps' | 'checkpointEvery'> & {
      validation?: TrainConfig['validation'];
    };
  /**
   * The held-out questions `config.validation` rolls out; without them its `count` last questions
   * of `questions` are held out of training.
   */
  validationQuestions?: readonly Q[];
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

export { TrainingInputError };

export async function runGrpoJob<Q extends { id: string }>(
  options: TrainJobOptions<Q>,
): Promise<TrainJobResult> {
  const { config, policy } = options;
  const sets = questionSets(options);
  const now = options.now ?? Date.now;
  const files = new JobFiles(options.dir);
  const state = await files.readState();
  if (state) await policy.loadCheckpoint(state.checkpoint);
  // Metrics logged after the checkpoint (a kill mid-way) go: those steps run again. A job killed
  // before its first checkpoint starts over from step 1.
  // SFT's lines (a phase before GRPO's, in the same file) stay in the file, not in this history;
  // GRPO's clock goes on from the last line of either phase.
  const kept = await files.rewindTo(state?.step ?? 0);
  const metrics = kept.filter((m) => m.phase === 'grpo');
  const first = (state?.step ?? 0) + 1;
  const elapsedBefore = kept.at(-1)?.elapsedMs ?? 0;
  const began = now();
  let stopped = false;
  for (let step = first; step <= config.steps; step++) {
    if (options.signal?.aborted) {
      stopped = true;
      break;
    }
    const figures = await runStep(options, sets, files, step);
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

interface QuestionSets<Q> {
  train: readonly Q[];
  validation: readonly Q[];
}

function questionSets<Q extends { id: string }>(options: TrainJobOptions<Q>): QuestionSets<Q> {
  const { questions, config } = options;
  if (questions.length === 0) throw new TrainingInputError('the training set has no questions');
  if (!config.validation) return { train: questions, validation: [] };
  if (options.validationQuestions) {
    return { train: questions, validation: options.validationQuestions };
  }
  return holdOut(questions, config.validation.count);
}

/** One GRPO step, its rollouts' training written, then validation when the step has one. */
async function runStep<Q extends { id: string }>(
  options: TrainJobOptions<Q>,
  sets: QuestionSets<Q>,
  files: JobFiles,
  step: number,
): Promise<Omit<StepMetrics, 'step' | 'phase' | 'at' | 'elapsedMs'>> {
  const { config } = options;
  const { figures, rollouts } = await grpoStep(options, batchFor(sets.train, config, step), step);
  // Written before the metrics line, so a step the Train view lists can always be opened.
  await files.writeRollouts(step, rollouts);
  const validation = config.validation;
  let validated: Partial<ValidationFigures> = {};
  if (validation && sets.validation.length > 0 && validatesAt(step, validation, config.steps)) {
    validated = await validate(options, sets.validation, step, validation.k);
  }
  return { ...figures, ...validated };
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
