// The workspace's datasets, each with its counts and, while a teacher writes it, its progress and
// cost so far (dataset.progress events) and a Stop; and the forms that make one: a generation over
// a paper set with a teacher model, or an import of a QASPER, SkyRL or our dataset file.
import { useState, type SyntheticEvent } from 'react';
import type { ApiEventOf, DatasetSummary, Grouping } from '../../../../app/api/index.ts';
import { useApi } from '../../api/ApiContext.tsx';
import { useApiEvent } from '../../api/useApiEvent.ts';
import { FailureLine } from '../papers/FailureLine.tsx';
import { Choice, datasetFormatChoices, TextField } from '../fields.tsx';
import { useEngineAction } from '../papers/use-engine-action.ts';
import { useEngineQuery } from '../papers/use-engine-query.ts';

type Progress = ApiEventOf<'dataset.progress'>;

export const money = (usd: number | null): string =>
  usd === null ? 'cost unknown' : `$${usd.toFixed(4)}`;

export interface Generations {
  /** The latest progress of each generation running now (ended ones drop out). */
  progress: ReadonlyMap<string, Progress>;
  /** Started here and not yet reported a group: shown running until the first report or end. */
  starting: ReadonlySet<string>;
  started: (name: string) => void;
}

export function useGenerations(): Generations {
  const [progress, setProgress] = useState<ReadonlyMap<string, Progress>>(new Map());
  const [starting, setStarting] = useState<ReadonlySet<string>>(new Set());
  const drop = (name: string) => {
    setStarting((current) => {
      if (!current.has(name)) return current;
      const next = new Set(current);
      next.delete(name);
      return next;
    });
  };
  useApiEvent('dataset.progress', (event) => {
    setProgress((current) => new Map(current).set(event.dataset, event));
    drop(event.dataset);
  });
  useApiEvent('dataset.finished', (event) => {
    setProgress((current) => {
      const next = new Map(current);
      next.delete(event.dataset);
      return next;
    });
    drop(event.dataset);
  });
  const started = (name: string) => {
    setStarting((current) => new Set(current).add(name));
  };
  return { progress, starting, started };
}

export function DatasetList(props: {
  datasets: readonly DatasetSummary[];
  selected: string | null;
  generations: Generations;
  onOpen: (name: string) => void;
}) {
  const api = useApi();
  return (
    <ul className="datasets-list" data-testid="datasets-list">
      {props.datasets.length === 0 && (
        <li className="papers-muted">No datasets yet: generate one or import a file.</li>
      )}
      {props.datasets.map((d) => {
        const progress = props.generations.progress.get(d.name);
        const running = progress !== undefined || props.generations.starting.has(d.name);
        return (
          <li key={d.id}>
            <button
              type="button"
              className="datasets-item"
              aria-pressed={d.name === props.selected}
              onClick={() => {
                props.onOpen(d.name);
              }}
              data-testid="dataset-item"
              data-name={d.name}
            >
              <strong>{d.name}</strong>
              <span className="papers-muted">
                {d.questions} questions · train {d.train} · validation {d.validation}
                {d.generation ? ` · ${money(d.costUsd)}` : ''}
              </span>
            </button>
            {running && (
              <div className="datasets-progress" data-testid="dataset-progress">
                <progress
                  value={progress?.groupsDone ?? 0}
                  max={Math.max(1, progress?.groupsPlanned ?? d.groupsPlanned)}
                />
                <span>
                  groups {progress?.groupsDone ?? d.groupsDone}/
                  {progress?.groupsPlanned ?? d.groupsPlanned} ·{' '}
                  {progress?.questions ?? d.questions} questions ·{' '}
                  {money(progress?.costUsd ?? d.costUsd)}
                </span>
                <button
                  type="button"
                  className="papers-link-button"
                  onClick={() => void api.call('datasets.cancel', { dataset: d.name })}
                  data-testid="dataset-cancel"
                >
                  Stop
                </button>
              </div>
            )}
          </li>
        );
      })}
    </ul>
  );
}

/** A teacher writes questions over groups of similar papers of a set (the same name resumes). */
export function GenerateForm(props: { onStarted: (name: string, grouping: Grouping) => void }) {
  const api = useApi();
  const sets = useEngineQuery('datasets-paper-sets', () => api.call('papers.sets', {}), {
    refreshOn: 'papers.setsChanged',
  });
  const [values, setValues] = useState({
    name: '',
    set: '',
    teacher: '',
    groups: '',
    groupSize: '10',
    perGroup: '3',
    seed: '0',
    validation: '0.2',
  });
  const { failure, run } = useEngineAction();
  const field = (key: keyof typeof values) => ({
    value: values[key],
    onChange: (e: { target: { value: string } }) => {
      setValues((v) => ({ ...v, [key]: e.target.value }));
    },
    'data-testid': `generate-${key}`,
  });
  const setNames = sets.status === 'ready' ? sets.value.sets.map((s) => s.name) : [];
  const submit = (event: SyntheticEvent) => {
    event.preventDefault();
    const set = values.set === '' ? (setNames[0] ?? '') : values.set;
    const name = values.name.trim() || `${set}-questions`;
    run(
      () =>
        api.call('datasets.generate', {
          name,
          options: {
            set,
            teacher: values.teacher.trim(),
            ...(values.groups.trim() === '' ? {} : { groups: Number(values.groups) }),
            groupSize: Number(values.groupSize),
            perGroup: Number(values.perGroup),
            seed: Number(values.seed),
            validation: Number(values.validation),
            maxCharsPerPaper: 12_000,
          },
        }),
      ({ grouping }) => {
        props.onStarted(name, grouping);
      },
    );
  };
  return (
    <form className="datasets-form" onSubmit={submit} data-testid="generate-form">
      <h2>Generate with a teacher</h2>
      <label>
        paper set
        <select {...field('set')}>
          {setNames.map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
        </select>
      </label>
      <label title="any model spec: openai:MODEL, anthropic:MODEL, endpoint:NAME, local:PATH, scripted:FILE">
        teacher model
        <input {...field('teacher')} placeholder="e.g. endpoint:My vLLM" />
      </label>
      <label>
        dataset name
        <input {...field('name')} placeholder="SET-questions" />
      </label>
      <div className="datasets-numbers">
        <label>
          groups
          <input {...field('groups')} type="number" min="1" placeholder="all" />
        </label>
        <label>
          papers per group
          <input {...field('groupSize')} type="number" min="1" />
        </label>
        <label>
          questions per group
          <input {...field('perGroup')} type="number" min="1" />
        </label>
        <label>
          seed
          <input {...field('seed')} type="number" />
        </label>
        <label>
          validation share
          <input {...field('validation')} type="number" step="any" min="0" max="1" />
        </label>
      </div>
      <button className="button" type="submit" data-testid="generate-start">
        Generate
      </button>
      <FailureLine failure={failure} testId="datasets-form-failure" />
    </form>
  );
}

/** A dataset file read into the workspace (its carried papers into the set its questions name). */
export function ImportForm(props: { onImported: (name: string, issues: string[]) => void }) {
  const api = useApi();
  const [path, setPath] = useState('');
  const [format, setFormat] = useState<'ours' | 'skyrl' | 'qasper'>('skyrl');
  const [name, setName] = useState('');
  const { failure, run } = useEngineAction();
  const submit = (event: SyntheticEvent) => {
    event.preventDefault();
    run(
      () => api.call('datasets.import', { path: path.trim(), format, name: name.trim() }),
      ({ dataset, issues }) => {
        props.onImported(dataset.name, issues);
      },
    );
  };
  return (
    <form className="datasets-form" onSubmit={submit} data-testid="import-form">
      <h2>Import a file</h2>
      <TextField
        label="file"
        value={path}
        placeholder="/path/to/rows.jsonl"
        onChange={setPath}
        testId="import-path"
      />
      <Choice
        label="format"
        value={format}
        options={datasetFormatChoices}
        onChange={(value) => {
          setFormat(value as typeof format);
        }}
        testId="import-format"
      />
      <TextField label="dataset name" value={name} onChange={setName} testId="import-name" />
      <button className="button" type="submit" data-testid="import-start">
        Import
      </button>
      <FailureLine failure={failure} testId="datasets-form-failure" />
    </form>
  );
}
