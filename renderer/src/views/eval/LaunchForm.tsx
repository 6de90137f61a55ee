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

export function LaunchForm({ onStarted }: LaunchFormProps) {
  const api = useApi();
  const datasets = useEngineQuery(
    'eval-datasets',
    async () => (await api.call('evals.datasets', {})).datasets,
  );
  const known = datasets.status === 'ready' ? datasets.value : [];
  // Saved endpoints (Settings > Models) are offered for the model and the judge.
  const endpoints = useEngineQuery(
    'eval-endpoints',
    async () => (await api.call('models.endpoints', {})).endpoints,
  );
  const specs = endpoints.status === 'ready' ? endpoints.value : [];
  const [dataset, setDataset] = useState('');
  const [format, setFormat] = useState<DatasetFormatName>('qasper');
  const [multiPaper, setMultiPaper] = useState(false);
  const [model, setModel] = useState('');
  const [judge, setJudge] = useState('');
  const [limit, setLimit] = useState('');
  const [concurrency, setConcurrency] = useState('4');
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<Failure | null>(null);

  const chosen = dataset !== '' ? dataset : (known[0]?.path ?? '');
  const pick = (path: string) => {
    setDataset(path);
    const entry = known.find((d) => d.path === path);
    if (entry) setFormat(entry.format);
  };

  const submit = async (event: SyntheticEvent) => {
    event.preventDefault();
    setBusy(true);
    setFailure(null);
    try {
      const started = await api.call('evals.start', {
        dataset: chosen,
        format,
        model: model.trim(),
        ...(judge.trim() ? { judge: judge.trim() } : {}),
        ...(limit ? { limit: Number(limit) } : {}),
        ...(concurrency ? { concurrency: Number(concurrency) } : {}),
        ...(multiPaper ? { multiPaper: true } : {}),
      });
      onStarted(started.evalId);
    } catch (error) {
      setFailure(describeFailure(error));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form
      className="eval-launch"
      onSubmit={(event) => void submit(event)}
      data-testid="eval-launch"
    >
      <label>
        Dataset
        <input
          list="eval-datasets"
          value={chosen}
          onChange={(event) => {
            pick(event.target.value);
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
      <label>
        Format
        <select
          value={format}
          onChange={(event) => {
            setFormat(event.target.value as DatasetFormatName);
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
          checked={multiPaper}
          onChange={(event) => {
            setMultiPaper(event.target.checked);
          }}
          data-testid="eval-multi-paper"
        />
        10 papers per question (QASPER)
      </label>
      <label>
        Model
        <input
          value={model}
          onChange={(event) => {
            setModel(event.target.value);
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
          value={judge}
          onChange={(event) => {
            setJudge(event.target.value);
          }}
          placeholder="a model spec; no rubric without one"
          list="eval-model-specs"
          data-testid="eval-judge"
        />
      </label>
      <label>
        Limit
        <input
          type="number"
          min={1}
          value={limit}
          onChange={(event) => {
            setLimit(event.target.value);
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
          value={concurrency}
          onChange={(event) => {
            setConcurrency(event.target.value);
          }}
          data-testid="eval-concurrency"
        />
      </label>
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
        disabled={busy || chosen === '' || model.trim() === ''}
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
