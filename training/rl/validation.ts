// Validation without training (TRL's and verl's eval steps): k rollouts of each held-out question
// from the policy as it is after the step, pass@k (a question passes when some sample's reward is
// above 0) and the mean reward. Nothing here touches the policy's gradients.
import type { TrainConfig } from '../../app/api/index.ts';
import { mixSeed, type GrpoDeps } from './grpo-step.ts';
import { mean } from './step-figures.ts';
import { TrainingInputError } from './training-errors.ts';

export type ValidationConfig = NonNullable<TrainConfig['validation']>;

export interface ValidationFigures {
  passAtK: number;
  validationRewardMean: number;
  validationSeconds: number;
}

/** Salt of the validation rollouts' seeds, so they never repeat a training rollout's. */
const validationSalt = 0x7a11d;

/** Share of questions with some reward > 0 among their samples. */
export function passAtK(rewards: readonly (readonly number[])[]): number {
  if (rewards.length === 0) return 0;
  return rewards.filter((samples) => samples.some((r) => r > 0)).length / rewards.length;
}

/** Whether `step` validates: every `every` steps and on the job's last step. */
export function validatesAt(step: number, validation: ValidationConfig, steps: number): boolean {
  return step % validation.every === 0 || step === steps;
}

/** The set's last `count` questions held out for validation, the rest to train on. */
export function holdOut<Q>(
  questions: readonly Q[],
  count: number,
): { train: Q[]; validation: Q[] } {
  if (count >= questions.length) {
    throw new TrainingInputError(
      `validation holds out ${count} questions but the set has ${questions.length}; lower validation.count or use a larger set`,
    );
  }
  return {
    train: questions.slice(0, questions.length - count),
    validation: questions.slice(questions.length - count),
  };
}

export async function validate<Q extends { id: string }>(
  deps: Pick<GrpoDeps<Q>, 'rollout' | 'reward' | 'now'> & { config: Pick<TrainConfig, 'seed'> },
  questions: readonly Q[],
  step: number,
  k: number,
): Promise<ValidationFigures> {
  const now = deps.now ?? Date.now;
  const started = now();
  const rewards = await Promise.all(
    questions.map((question, q) =>
      Promise.all(
        Array.from({ length: k }, async (_, index) => {
          const seed = mixSeed(deps.config.seed, step, q, index, validationSalt);
          const outcome = await deps.rollout(question, { step, index, seed, validation: true });
          return (await deps.reward(question, outcome)).reward;
        }),
      ),
    ),
  );
  return {
    passAtK: passAtK(rewards),
    validationRewardMean: mean(rewards.flat()),
    validationSeconds: (now() - started) / 1000,
  };
}
