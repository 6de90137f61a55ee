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
];

export function JobForm({
  onStarted,
  onConfig,
}: {
  onStarted: (job: TrainJob) => void;
  /** Told the form's job as it changes (the cluster panel exports the same job). */
  onConfig?: (result: JobConfigResult) => void;
}) {
  const api = useApi();
  const [values, setValues] = useState<Record<string, string>>(() => ({
    name: 'toy run',
    baseModel: 'toy:bigram',
    reward: 'rubric',
    judge: '',
    weighting: 'subtree-mean',
    datasetPath: '',
    datasetFormat: 'skyrl',
    ...Object.fromEntries(numericFields.map((f) => [f.key, f.value])),
  }));
  const [failure, setFailure] = useState<Failure | null>(null);
  const [busy, setBusy] = useState(false);
  const set = (key: string) => (value: string) => {
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

  return (
    <form className="train-form" onSubmit={submit} data-testid="train-form">
      <label>
        name
        <input
          value={values.name}
          onChange={(e) => {
            set('name')(e.target.value);
          }}
          data-testid="train-name"
        />
      </label>
      <label title="a Hugging Face model folder, a llama2.c checkpoint, or toy:bigram (a model-free demo task)">
        base model
        <input
          value={values.baseModel}
          onChange={(e) => {
            set('baseModel')(e.target.value);
          }}
          data-testid="train-base-model"
        />
      </label>
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
      <label title="the questions to train on (a real model needs one; toy:bigram brings its own)">
        dataset file
        <input
          value={values.datasetPath}
          placeholder="/path/to/dataset.jsonl"
          onChange={(e) => {
            set('datasetPath')(e.target.value);
          }}
          data-testid="train-dataset"
        />
      </label>
      <label>
        dataset format
        <select
          value={values.datasetFormat}
          data-testid="train-dataset-format"
          onChange={(e) => {
            set('datasetFormat')(e.target.value);
          }}
        >
          <option value="skyrl">SkyRL rows</option>
          <option value="ours">ours</option>
          <option value="qasper">QASPER</option>
        </select>
      </label>
      <label>
        reward
        <select
          value={values.reward}
          onChange={(e) => {
            set('reward')(e.target.value);
          }}
        >
          <option value="rubric">rubric judge</option>
          <option value="span-f1">span F1</option>
        </select>
      </label>
      <label>
        judge model
        <input
          value={values.judge}
          placeholder="e.g. endpoint:My vLLM"
          onChange={(e) => {
            set('judge')(e.target.value);
          }}
        />
      </label>
      <label>
        child weighting
        <select
          value={values.weighting}
          onChange={(e) => {
            set('weighting')(e.target.value);
          }}
        >
          <option value="subtree-mean">1/k subtree mean (write-up)</option>
          <option value="token-mean">token mean (reference code)</option>
          <option value="sample-one-child">one sampled child</option>
        </select>
      </label>
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
