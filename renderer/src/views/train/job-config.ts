// The Train form's fields as a TrainConfig (app/api): one builder for "Launch" and for "Export to
// cluster", so both send the job the user sees. A refused field comes back named. A workspace
// dataset arrives as the file the engine wrote for it (datasets.splitFile) and its name.
import { TrainConfig } from '../../../../app/api/index.ts';
import type { Failure } from '../papers/failure.ts';

export type JobConfigResult =
  { ok: true; name: string; config: TrainConfig } | { ok: false; failure: Failure };

/** Validation every N steps (pass@k on held-out questions); absent, empty or 0: none. */
function validationOf(number: (key: string) => number) {
  const every = number('validateEvery');
  if (!(every > 0)) return {};
  return { validation: { every, k: number('validateK'), count: number('validateCount') } };
}

/** The LoRA target modules typed comma-separated; absent or empty: TrainConfig's default. */
function targetsOf(values: Readonly<Record<string, string>>) {
  const targets = (values.targets ?? '')
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t !== '');
  return targets.length === 0 ? {} : { targetModules: targets };
}

/** Cold-start SFT on a workspace SFT set, when one is picked. */
function sftOf(values: Readonly<Record<string, string>>, number: (key: string) => number) {
  const set = values.sftSet?.trim() ?? '';
  if (set === '') return {};
  return {
    sft: {
      set,
      epochs: number('sftEpochs'),
      learningRate: number('sftLearningRate'),
      batchSize: number('sftBatchSize'),
    },
  };
}

/** A dataset file, with the workspace dataset it was written from when it was one. */
function datasetOf(values: Readonly<Record<string, string>>) {
  if (!values.datasetPath) return {};
  const name = values.datasetName ?? '';
  return {
    dataset: {
      path: values.datasetPath,
      format: values.datasetFormat,
      ...(name === '' ? {} : { name }),
    },
  };
}

export function jobConfig(values: Readonly<Record<string, string>>): JobConfigResult {
  const number = (key: string) => Number(values[key]);
  const parsed = TrainConfig.safeParse({
    baseModel: values.baseModel,
    lora: { rank: number('rank'), alpha: number('alpha'), ...targetsOf(values) },
    learningRate: number('learningRate'),
    groupSize: number('groupSize'),
    batchSize: number('batchSize'),
    beta: number('beta'),
    maxTurns: number('maxTurns'),
    ...(values.maxTokensPerTurn ? { maxTokensPerTurn: number('maxTokensPerTurn') } : {}),
    maxDepth: number('maxDepth'),
    maxChildren: number('maxChildren'),
    steps: number('steps'),
    checkpointEvery: number('checkpointEvery'),
    ...validationOf(number),
    reward: values.reward,
    ...(values.promptStyle ? { promptStyle: values.promptStyle } : {}),
    weighting: values.weighting,
    ...(values.judge ? { judge: values.judge } : {}),
    ...datasetOf(values),
    ...sftOf(values, number),
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return {
      ok: false,
      failure: {
        name: 'InvalidTrainConfig',
        message: `${issue?.path.join('.') ?? 'config'}: ${issue?.message ?? 'invalid'}`,
      },
    };
  }
  const name = values.name?.trim() ?? '';
  return { ok: true, name: name === '' ? 'run' : name, config: parsed.data };
}
