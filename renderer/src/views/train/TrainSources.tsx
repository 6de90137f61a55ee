// What a Train job is made from, picked from the workspace: the base model (model folders and
// llama2.c files under <workspace>/models and those earlier jobs trained, the folder picker in the
// desktop app, a typed path in serve mode, or the toy:bigram demo by name), the dataset (a
// workspace dataset's train split, written as a file by the engine, or a dataset file) and the SFT
// set cold-start SFT trains on before GRPO.
import type { Dispatch, SetStateAction } from 'react';
import type { BaseModel, DatasetSummary, SftSetSummary } from '../../../../app/api/index.ts';
import { useApi } from '../../api/ApiContext.tsx';
import { useAppInfo } from '../../shell/useAppInfo.ts';
import { FailureLine } from '../papers/FailureLine.tsx';
import { useEngineAction } from '../papers/use-engine-action.ts';
import { useEngineQuery } from '../papers/use-engine-query.ts';
import { Choice, datasetFormatChoices, TextField, type SetField } from '../fields.tsx';

export interface TrainSources {
  models: readonly BaseModel[];
  datasets: readonly DatasetSummary[];
  sftSets: readonly SftSetSummary[];
  /** The first model the workspace has (never the demo), once the list is in; else null. */
  defaults: { baseModel: string } | null;
  nativeDialogs: boolean;
}

const emptyDefaults = null;

export function useTrainSources(datasetName: string): TrainSources {
  const api = useApi();
  const appInfo = useAppInfo();
  const models = useEngineQuery('train-models', () => api.call('train.models', {}), {
    refreshOn: 'train.jobChanged',
  });
  const datasets = useEngineQuery('train-datasets', () => api.call('datasets.list', {}), {
    refreshOn: 'dataset.finished',
  });
  const sftSets = useEngineQuery(`train-sft-sets:${datasetName}`, () =>
    api.call('sftSets.list', datasetName === '' ? {} : { dataset: datasetName }),
  );
  const modelList = models.status === 'ready' ? models.value.models : [];
  const first = modelList.find((m) => m.format !== 'demo');
  return {
    models: modelList,
    datasets: datasets.status === 'ready' ? datasets.value.datasets : [],
    sftSets: sftSets.status === 'ready' ? sftSets.value.sets : [],
    defaults: first ? { baseModel: first.path } : emptyDefaults,
    nativeDialogs: appInfo.status === 'ready' && appInfo.info.capabilities.nativeDialogs,
  };
}

const sourceLabel: Record<BaseModel['source'], string> = {
  workspace: 'workspace models',
  job: 'trained before',
  demo: 'demo',
};

export function BaseModelField(props: {
  value: string;
  onChange: (value: string) => void;
  sources: TrainSources;
}) {
  const api = useApi();
  const { failure, run } = useEngineAction();
  const known = props.sources.models.some((m) => m.path === props.value);
  const choose = () => {
    run(
      () =>
        api.call('dialog.openPaths', {
          title: 'Base model folder',
          directories: true,
          multiple: false,
        }),
      ({ paths, canceled }) => {
        const [path] = paths;
        if (!canceled && path !== undefined) props.onChange(path);
      },
    );
  };
  return (
    <fieldset className="train-source" data-testid="train-base-model-field">
      <legend>base model</legend>
      <select
        aria-label="base model the workspace knows"
        value={known ? props.value : ''}
        onChange={(e) => {
          if (e.target.value !== '') props.onChange(e.target.value);
        }}
        data-testid="train-base-model-pick"
      >
        <option value="">{props.sources.models.length > 1 ? 'pick one…' : 'a typed path'}</option>
        {props.sources.models.map((model) => (
          <option key={model.path} value={model.path}>
            {model.label} ({sourceLabel[model.source]})
          </option>
        ))}
      </select>
      <input
        aria-label="base model path"
        title="a Hugging Face model folder or a llama2.c checkpoint (toy:bigram: the model-free demo)"
        value={props.value}
        placeholder="/path/to/model-folder or model.bin"
        onChange={(e) => {
          props.onChange(e.target.value);
        }}
        data-testid="train-base-model"
      />
      {props.sources.nativeDialogs && (
        <button className="button" type="button" onClick={choose}>
          Choose folder…
        </button>
      )}
      <FailureLine failure={failure} />
    </fieldset>
  );
}

export function DatasetFields(props: {
  values: Readonly<Record<string, string>>;
  setValues: Dispatch<SetStateAction<Record<string, string>>>;
  sources: TrainSources;
}) {
  const api = useApi();
  const { failure, run } = useEngineAction();
  const { values, setValues } = props;
  const name = values.datasetName ?? '';
  const set: SetField = (key) => (value) => {
    setValues((current) => ({ ...current, [key]: value }));
  };
  const pick = (picked: string) => {
    if (picked === '') {
      setValues((c) => ({ ...c, datasetName: '', datasetPath: '', sftSet: '' }));
      return;
    }
    // The engine writes the train split where the job will read it.
    run(
      () => api.call('datasets.splitFile', { dataset: picked, split: 'train' }),
      ({ path }) => {
        setValues((c) => ({
          ...c,
          datasetName: picked,
          datasetPath: path,
          datasetFormat: 'ours',
          sftSet: '',
        }));
      },
    );
  };
  const summary = props.sources.datasets.find((d) => d.name === name);
  return (
    <fieldset className="train-source" data-testid="train-dataset-field">
      <legend>dataset</legend>
      <select
        aria-label="workspace dataset"
        value={name}
        onChange={(e) => {
          pick(e.target.value);
        }}
        data-testid="train-dataset-source"
      >
        <option value="">a dataset file</option>
        {props.sources.datasets.map((d) => (
          <option key={d.id} value={d.name}>
            {d.name} ({d.train} train questions)
          </option>
        ))}
      </select>
      {name === '' ? (
        <>
          <TextField
            label="file"
            title="the questions to train on (a real model needs one; toy:bigram brings its own)"
            value={values.datasetPath}
            placeholder="/path/to/dataset.jsonl"
            onChange={set('datasetPath')}
            testId="train-dataset"
          />
          <Choice
            label="format"
            value={values.datasetFormat}
            options={datasetFormatChoices}
            onChange={set('datasetFormat')}
            testId="train-dataset-format"
          />
        </>
      ) : (
        <span className="train-source-note" data-testid="train-dataset-note">
          its train split: {summary?.train ?? '?'} questions ({summary?.approved ?? 0} approved,{' '}
          {summary?.rejected ?? 0} rejected)
        </span>
      )}
      <FailureLine failure={failure} />
    </fieldset>
  );
}

const sftNumbers = [
  { key: 'sftEpochs', label: 'SFT epochs', step: '1' },
  { key: 'sftLearningRate', label: 'SFT learning rate', step: 'any' },
  { key: 'sftBatchSize', label: 'SFT batch', step: '1' },
];

export function SftFields(props: {
  values: Readonly<Record<string, string>>;
  set: SetField;
  sources: TrainSources;
}) {
  const { values, set } = props;
  const chosen = values.sftSet ?? '';
  return (
    <fieldset className="train-source" data-testid="train-sft-field">
      <legend>cold-start SFT</legend>
      <select
        aria-label="SFT set"
        value={chosen}
        onChange={(e) => {
          set('sftSet')(e.target.value);
        }}
        data-testid="train-sft-set"
      >
        <option value="">none (GRPO only)</option>
        {props.sources.sftSets.map((s) => (
          <option key={s.id} value={s.name}>
            {s.name} ({s.accepted} of {s.considered} runs)
          </option>
        ))}
      </select>
      {chosen !== '' &&
        sftNumbers.map((field) => (
          <label key={field.key}>
            {field.label}
            <input
              type="number"
              step={field.step}
              value={values[field.key]}
              onChange={(e) => {
                set(field.key)(e.target.value);
              }}
              data-testid={`train-${field.key}`}
            />
          </label>
        ))}
    </fieldset>
  );
}
