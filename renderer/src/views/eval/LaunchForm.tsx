// Launches (or resumes) an eval: a dataset (one used before, the shared QASPER test set, or any
// path), its format and variant, the RLM's model spec, an optional judge, limit and concurrency.
import { useState, type SyntheticEvent } from 'react';
import type { DatasetFormatName } from '../../../../app/api/index.ts';
import { useApi } from '../../api/ApiContext.tsx';
import { describeFailure, type Failure } from '../papers/failure.ts';
import { useEngineQuery } from '../papers/use-engine-query.ts';

export interface LaunchFormProps {
  onStarted: (evalId: string) => void;
}

const formats: readonly DatasetFormatName[] = ['qasper', 'ours', 'skyrl'];

interface LaunchValues {
  dataset: string;
  format: DatasetFormatName;
  multiPaper: boolean;
  model: string;
  judge: string;
  limit: string;
  concurrency: string;
}

const initialValues: LaunchValues = {
  dataset: '',
  format: 'qasper',
  multiPaper: false,
  model: '',
  judge: '',
  limit: '',
  concurrency: '4',
};

interface KnownDataset {
  path: string;
  name: string;
  format: DatasetFormatName;
}

// Empty optional fields are left out, so the engine's defaults apply.
function startRequest(values: LaunchValues, dataset: string) {
  const { format, model, judge, limit, concurrency, multiPaper } = values;
  return {
    dataset,
    format,
    model: model.trim(),
    ...(judge.trim() ? { judge: judge.trim() } : {}),
    ...(limit ? { limit: Number(limit) } : {}),
    ...(concurrency ? { concurrency: Number(concurrency) } : {}),
    ...(multiPaper ? { multiPaper: true } : {}),
  };
}

// Datasets used before, and the saved endpoints (Settings > Models) for the model and the judge.
function useLaunchChoices() {
  const api = useApi();
  const datasets = useEngineQuery(
    'eval-datasets',
    async () => (await api.call('evals.datasets', {})).datasets,
  );
  const endpoints = useEngineQuery(
    'eval-endpoints',
    async () => (await api.call('models.endpoints', {})).endpoints,
  );
  return {
    known: datasets.status === 'ready' ? datasets.value : [],
    specs: endpoints.status === 'ready' ? endpoints.value : [],
  };
}

function useStartEval(onStarted: (evalId: string) => void) {
  const api = useApi();
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<Failure | null>(null);
  const start = async (request: ReturnType<typeof startRequest>) => {
    setBusy(true);
    setFailure(null);
    try {
      const started = await api.call('evals.start', request);
      onStarted(started.evalId);
    } catch (error) {
      setFailure(describeFailure(error));
    } finally {
      setBusy(false);
    }
  };
  return { busy, failure, start };
}

export function LaunchForm({ onStarted }: LaunchFormProps) {
  const { known, specs } = useLaunchChoices();
  const [values, setValues] = useState<LaunchValues>(initialValues);
  const { busy, failure, start } = useStartEval(onStarted);
  const update = (patch: Partial<LaunchValues>) => {
    setValues((current) => ({ ...current, ...patch }));
  };

  const chosen = values.dataset !== '' ? values.dataset : (known[0]?.path ?? '');
  const pick = (path: string) => {
    const entry = known.find((d) => d.path === path);
    update(entry ? { dataset: path, format: entry.format } : { dataset: path });
  };
  const submit = (event: SyntheticEvent) => {
    event.preventDefault();
    void start(startRequest(values, chosen));
  };

  return (
    <form className="eval-launch" onSubmit={submit} data-testid="eval-launch">
      <DatasetField chosen={chosen} known={known} onPick={pick} />
      <FormatFields values={values} update={update} />
      <ModelFields values={values} update={update} />
      <datalist id="eval-model-specs">
        {specs.map((endpoint) => (
          <option key={endpoint.spec} value={endpoint.spec}>
            {endpoint.name}
          </option>
        ))}
      </datalist>
      <button
        className="button"
        type="submit"
        disabled={busy || chosen === '' || values.model.trim() === ''}
        data-testid="eval-start"
      >
        {busy ? 'Starting…' : 'Run eval'}
      </button>
      {failure && (
        <p className="papers-failure" role="alert" data-testid="eval-launch-error">
          {failure.name}: {failure.message}
        </p>
      )}
    </form>
  );
}

function DatasetField({
  chosen,
  known,
  onPick,
}: {
  chosen: string;
  known: readonly KnownDataset[];
  onPick: (path: string) => void;
}) {
  return (
    <label>
      Dataset
      <input
        list="eval-datasets"
        value={chosen}
        onChange={(event) => {
          onPick(event.target.value);
        }}
        placeholder="path to a dataset file"
        data-testid="eval-dataset"
        required
      />
      <datalist id="eval-datasets">
        {known.map((d) => (
          <option key={`${d.path}|${d.format}`} value={d.path}>
            {d.name} ({d.format})
          </option>
        ))}
      </datalist>
    </label>
  );
}

interface FieldsProps {
  values: LaunchValues;
  update: (patch: Partial<LaunchValues>) => void;
}

function FormatFields({ values, update }: FieldsProps) {
  return (
    <>
      <label>
        Format
        <select
          value={values.format}
          onChange={(event) => {
            update({ format: event.target.value as DatasetFormatName });
          }}
          data-testid="eval-format"
        >
          {formats.map((f) => (
            <option key={f} value={f}>
              {f}
            </option>
          ))}
        </select>
      </label>
      <label className="eval-check">
        <input
          type="checkbox"
          checked={values.multiPaper}
          onChange={(event) => {
            update({ multiPaper: event.target.checked });
          }}
          data-testid="eval-multi-paper"
        />
        10 papers per question (QASPER)
      </label>
    </>
  );
}

function ModelFields({ values, update }: FieldsProps) {
  return (
    <>
      <label>
        Model
        <input
          value={values.model}
          onChange={(event) => {
            update({ model: event.target.value });
          }}
          placeholder="openai:gpt-4o-mini, anthropic:…, scripted:FILE"
          list="eval-model-specs"
          data-testid="eval-model"
          required
        />
      </label>
      <label>
        Judge (optional)
        <input
          value={values.judge}
          onChange={(event) => {
            update({ judge: event.target.value });
          }}
          placeholder="a model spec; no rubric without one"
          list="eval-model-specs"
          data-testid="eval-judge"
        />
      </label>
      <LimitFields values={values} update={update} />
    </>
  );
}

function LimitFields({ values, update }: FieldsProps) {
  return (
    <>
      <label>
        Limit
        <input
          type="number"
          min={1}
          value={values.limit}
          onChange={(event) => {
            update({ limit: event.target.value });
          }}
          placeholder="all"
          data-testid="eval-limit"
        />
      </label>
      <label>
        Concurrency
        <input
          type="number"
          min={1}
          max={256}
          value={values.concurrency}
          onChange={(event) => {
            update({ concurrency: event.target.value });
          }}
          data-testid="eval-concurrency"
        />
      </label>
    </>
  );
}
