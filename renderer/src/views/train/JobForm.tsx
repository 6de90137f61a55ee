// Configure and launch a local training job. Every field maps to TrainConfig (app/api), which the
// engine validates again; a refused field comes back named and is shown beside the form. The base
// model, the dataset and the SFT set are picked from what the workspace has (TrainSources.tsx);
// typed paths still work, and toy:bigram is there only as the named demo.
import { useEffect, useState, type SyntheticEvent } from 'react';
import type { TrainJob } from '../../../../app/api/index.ts';
import { useApi } from '../../api/ApiContext.tsx';
import { describeFailure, type Failure } from '../papers/failure.ts';
import { jobConfig, type JobConfigResult } from './job-config.ts';
import { Choice, TextField, type SetField } from '../fields.tsx';
import { BaseModelField, DatasetFields, SftFields, useTrainSources } from './TrainSources.tsx';

interface Field {
  key: string;
  label: string;
  value: string;
  step?: string;
}

const numericFields: Field[] = [
  { key: 'rank', label: 'LoRA rank', value: '8' },
  { key: 'alpha', label: 'LoRA alpha', value: '16' },
  { key: 'learningRate', label: 'learning rate', value: '1e-6', step: 'any' },
  { key: 'groupSize', label: 'G (rollouts per question)', value: '8' },
  { key: 'batchSize', label: 'questions per step', value: '16' },
  { key: 'beta', label: 'KL β', value: '0.01', step: 'any' },
  { key: 'maxTurns', label: 'turns', value: '10' },
  { key: 'maxTokensPerTurn', label: 'tokens per turn', value: '1024' },
  { key: 'maxDepth', label: 'depth', value: '1' },
  { key: 'maxChildren', label: 'children', value: '4' },
  { key: 'steps', label: 'steps', value: '100' },
  { key: 'checkpointEvery', label: 'checkpoint every', value: '10' },
  // Validation (pass@k on held-out questions) is off until it runs every N > 0 steps.
  { key: 'validateEvery', label: 'validate every (0: off)', value: '0' },
  { key: 'validateK', label: 'pass@k: k', value: '4' },
  { key: 'validateCount', label: 'held-out questions', value: '8' },
];

const initialValues = (): Record<string, string> => ({
  name: 'run',
  baseModel: '',
  reward: 'rubric',
  judge: '',
  weighting: 'subtree-mean',
  datasetPath: '',
  datasetFormat: 'skyrl',
  datasetName: '',
  targets: 'q_proj,k_proj,v_proj,o_proj',
  promptStyle: 'long',
  sftSet: '',
  sftEpochs: '2',
  sftLearningRate: '1e-4',
  sftBatchSize: '4',
  ...Object.fromEntries(numericFields.map((f) => [f.key, f.value])),
});

const rewards = [
  { value: 'rubric', label: 'rubric judge' },
  { value: 'span-f1', label: 'span F1' },
];
const promptStyles = [
  { value: 'long', label: 'long (the paper’s)' },
  { value: 'short', label: 'short (fits a small model)' },
];
const weightings = [
  { value: 'subtree-mean', label: '1/k subtree mean (write-up)' },
  { value: 'token-mean', label: 'token mean (reference code)' },
  { value: 'sample-one-child', label: 'one sampled child' },
];

function useJobForm(
  onStarted: (job: TrainJob) => void,
  onConfig: ((result: JobConfigResult) => void) | undefined,
) {
  const api = useApi();
  const [values, setValues] = useState<Record<string, string>>(initialValues);
  const [failure, setFailure] = useState<Failure | null>(null);
  const [busy, setBusy] = useState(false);
  const set: SetField = (key) => (value) => {
    setValues((current) => ({ ...current, [key]: value }));
  };

  useEffect(() => {
    onConfig?.(jobConfig(values));
  }, [values, onConfig]);

  const submit = (event: SyntheticEvent) => {
    event.preventDefault();
    const built = jobConfig(values);
    if (!built.ok) {
      setFailure(built.failure);
      return;
    }
    setBusy(true);
    setFailure(null);
    // A workspace dataset is written out again at launch, so the job trains on its edits.
    const dataset = built.config.dataset;
    const refreshed = dataset?.name
      ? api.call('datasets.splitFile', { dataset: dataset.name, split: 'train' })
      : Promise.resolve(null);
    refreshed
      .then(() => api.call('train.start', { name: built.name, config: built.config }))
      .then(
        ({ job }) => {
          setBusy(false);
          onStarted(job);
        },
        (error: unknown) => {
          setBusy(false);
          setFailure(describeFailure(error));
        },
      );
  };
  return { values, set, setValues, failure, busy, submit };
}

export function JobForm({
  onStarted,
  onConfig,
}: {
  onStarted: (job: TrainJob) => void;
  /** Told the form's job as it changes (the cluster panel exports the same job). */
  onConfig?: (result: JobConfigResult) => void;
}) {
  const { values, set, setValues, failure, busy, submit } = useJobForm(onStarted, onConfig);
  const sources = useTrainSources(values.datasetName ?? '');
  const pickDefaults = sources.defaults;
  useEffect(() => {
    // The first model the workspace has, once known, unless one was typed already.
    if (pickDefaults === null) return;
    setValues((current) =>
      current.baseModel === '' ? { ...current, baseModel: pickDefaults.baseModel } : current,
    );
  }, [pickDefaults, setValues]);
  return (
    <form className="train-form" onSubmit={submit} data-testid="train-form">
      <TextField label="name" value={values.name} onChange={set('name')} testId="train-name" />
      <BaseModelField
        value={values.baseModel ?? ''}
        onChange={set('baseModel')}
        sources={sources}
      />
      <DatasetFields values={values} setValues={setValues} sources={sources} />
      <SftFields values={values} set={set} sources={sources} />
      <TextField
        label="LoRA targets"
        title="PEFT module names, comma-separated (Qwen3.5 adds in_proj_qkv, in_proj_z, out_proj, ...)"
        value={values.targets}
        onChange={set('targets')}
        testId="train-targets"
      />
      {numericFields.map((field) => (
        <label key={field.key}>
          {field.label}
          <input
            type="number"
            step={field.step ?? '1'}
            value={values[field.key]}
            onChange={(e) => {
              set(field.key)(e.target.value);
            }}
            data-testid={`train-${field.key}`}
          />
        </label>
      ))}
      <RewardFields values={values} set={set} />
      <button className="button" type="submit" disabled={busy} data-testid="train-launch">
        Launch
      </button>
      {failure && (
        <p className="papers-failure" role="alert" data-testid="train-form-failure">
          {failure.name}: {failure.message}
        </p>
      )}
    </form>
  );
}

function RewardFields({ values, set }: { values: Record<string, string>; set: SetField }) {
  return (
    <>
      <Choice label="reward" value={values.reward} options={rewards} onChange={set('reward')} />
      <TextField
        label="judge model"
        value={values.judge}
        placeholder="e.g. endpoint:My vLLM"
        onChange={set('judge')}
      />
      <Choice
        label="system prompt"
        value={values.promptStyle}
        options={promptStyles}
        onChange={set('promptStyle')}
        testId="train-prompt-style"
      />
      <Choice
        label="child weighting"
        value={values.weighting}
        options={weightings}
        onChange={set('weighting')}
      />
    </>
  );
}
