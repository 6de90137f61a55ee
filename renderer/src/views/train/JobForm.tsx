// Configure and launch a local training job. Every field maps to TrainConfig (app/api), which the
// engine validates again; a refused field comes back named and is shown beside the form.
import { useEffect, useState, type SyntheticEvent } from 'react';
import type { TrainJob } from '../../../../app/api/index.ts';
import { useApi } from '../../api/ApiContext.tsx';
import { describeFailure, type Failure } from '../papers/failure.ts';
import { jobConfig, type JobConfigResult } from './job-config.ts';

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
  name: 'toy run',
  baseModel: 'toy:bigram',
  reward: 'rubric',
  judge: '',
  weighting: 'subtree-mean',
  datasetPath: '',
  datasetFormat: 'skyrl',
  ...Object.fromEntries(numericFields.map((f) => [f.key, f.value])),
});

const datasetFormats = [
  { value: 'skyrl', label: 'SkyRL rows' },
  { value: 'ours', label: 'ours' },
  { value: 'qasper', label: 'QASPER' },
];
const rewards = [
  { value: 'rubric', label: 'rubric judge' },
  { value: 'span-f1', label: 'span F1' },
];
const weightings = [
  { value: 'subtree-mean', label: '1/k subtree mean (write-up)' },
  { value: 'token-mean', label: 'token mean (reference code)' },
  { value: 'sample-one-child', label: 'one sampled child' },
];

type SetField = (key: string) => (value: string) => void;

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
    api.call('train.start', { name: built.name, config: built.config }).then(
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
  return { values, set, failure, busy, submit };
}

export function JobForm({
  onStarted,
  onConfig,
}: {
  onStarted: (job: TrainJob) => void;
  /** Told the form's job as it changes (the cluster panel exports the same job). */
  onConfig?: (result: JobConfigResult) => void;
}) {
  const { values, set, failure, busy, submit } = useJobForm(onStarted, onConfig);
  return (
    <form className="train-form" onSubmit={submit} data-testid="train-form">
      <TextField label="name" value={values.name} onChange={set('name')} testId="train-name" />
      <TextField
        label="base model"
        title="a Hugging Face model folder, a llama2.c checkpoint, or toy:bigram (a model-free demo task)"
        value={values.baseModel}
        onChange={set('baseModel')}
        testId="train-base-model"
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
      <TextField
        label="dataset file"
        title="the questions to train on (a real model needs one; toy:bigram brings its own)"
        value={values.datasetPath}
        placeholder="/path/to/dataset.jsonl"
        onChange={set('datasetPath')}
        testId="train-dataset"
      />
      <Choice
        label="dataset format"
        value={values.datasetFormat}
        options={datasetFormats}
        onChange={set('datasetFormat')}
        testId="train-dataset-format"
      />
      <Choice label="reward" value={values.reward} options={rewards} onChange={set('reward')} />
      <TextField
        label="judge model"
        value={values.judge}
        placeholder="e.g. endpoint:My vLLM"
        onChange={set('judge')}
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

function TextField(props: {
  label: string;
  title?: string;
  value: string | undefined;
  placeholder?: string;
  onChange: (value: string) => void;
  testId?: string;
}) {
  return (
    <label title={props.title}>
      {props.label}
      <input
        value={props.value}
        placeholder={props.placeholder}
        onChange={(e) => {
          props.onChange(e.target.value);
        }}
        data-testid={props.testId}
      />
    </label>
  );
}

function Choice(props: {
  label: string;
  value: string | undefined;
  options: readonly { value: string; label: string }[];
  onChange: (value: string) => void;
  testId?: string;
}) {
  return (
    <label>
      {props.label}
      <select
        value={props.value}
        data-testid={props.testId}
        onChange={(e) => {
          props.onChange(e.target.value);
        }}
      >
        {props.options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
    </label>
  );
}
