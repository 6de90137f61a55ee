// Teacher traces and SFT sets of a dataset: a teacher RLM over its train split through the eval
// machinery (the same teacher resumes; progress from eval.progress), then an SFT set made from an
// eval's runs with the write-up's filter and a cap, shown as accepted and rejected runs with the
// reason, each run opening in the debugger.
import { useState, type SyntheticEvent } from 'react';
import { Link } from 'react-router';
import type { DatasetSummary, EvalSummary, SftSet } from '../../../../app/api/index.ts';
import { useApi } from '../../api/ApiContext.tsx';
import { FailureLine } from '../papers/FailureLine.tsx';
import { TextField } from '../fields.tsx';
import { useEngineAction } from '../papers/use-engine-action.ts';
import { useEngineQuery } from '../papers/use-engine-query.ts';

/** The evals over this dataset's split files (datasets.traces writes <id>-<split>.jsonl). */
function tracesOf(evals: readonly EvalSummary[], dataset: DatasetSummary): EvalSummary[] {
  return evals.filter(
    (e) => /[\\/]datasets[\\/]/.test(e.datasetPath) && e.datasetPath.includes(dataset.id),
  );
}

export function TracesPanel(props: {
  dataset: DatasetSummary;
  sftSet: string | null;
  onSftSet: (name: string | null) => void;
}) {
  const api = useApi();
  const [reload, setReload] = useState(0);
  const evals = useEngineQuery('dataset-evals', () => api.call('evals.list', {}), {
    refreshOn: 'eval.progress',
    reloadToken: reload,
  });
  const sets = useEngineQuery(
    JSON.stringify(['dataset-sft-sets', props.dataset.name]),
    () => api.call('sftSets.list', { dataset: props.dataset.name }),
    { reloadToken: reload },
  );
  const traces = evals.status === 'ready' ? tracesOf(evals.value.evals, props.dataset) : [];
  return (
    <div className="datasets-traces" data-testid="dataset-traces">
      <TeacherForm
        dataset={props.dataset.name}
        onStarted={() => {
          setReload((n) => n + 1);
        }}
      />
      <h3>Teacher evals</h3>
      <ul className="datasets-evals" data-testid="traces-evals">
        {traces.length === 0 && <li className="papers-muted">None yet.</li>}
        {traces.map((e) => (
          <li key={e.id} data-testid="traces-eval" data-status={e.status} data-eval={e.id}>
            <Link to={`/eval?eval=${encodeURIComponent(e.id)}`}>{e.model}</Link>{' '}
            <progress value={e.done + e.failed} max={Math.max(1, e.total)} />{' '}
            <span className="papers-muted">
              {e.done + e.failed}/{e.total} · {e.status}
            </span>
          </li>
        ))}
      </ul>
      <SftSetForm
        dataset={props.dataset.name}
        evals={traces.filter((e) => e.status !== 'running')}
        onMade={(name) => {
          setReload((n) => n + 1);
          props.onSftSet(name);
        }}
      />
      <h3>SFT sets</h3>
      <ul className="datasets-sft-sets" data-testid="sft-sets">
        {sets.status === 'ready' && sets.value.sets.length === 0 && (
          <li className="papers-muted">None yet.</li>
        )}
        {sets.status === 'ready' &&
          sets.value.sets.map((s) => (
            <li key={s.id}>
              <button
                type="button"
                className="papers-link-button"
                aria-pressed={s.name === props.sftSet}
                onClick={() => {
                  props.onSftSet(s.name);
                }}
                data-testid="sft-set"
              >
                {s.name}
              </button>{' '}
              <span className="papers-muted">
                {s.accepted} of {s.considered} runs accepted (cap {s.cap})
              </span>
            </li>
          ))}
      </ul>
      {props.sftSet && (
        <SftSetRuns key={props.sftSet} name={props.sftSet} dataset={props.dataset.name} />
      )}
    </div>
  );
}

function TeacherForm(props: { dataset: string; onStarted: () => void }) {
  const api = useApi();
  const [teacher, setTeacher] = useState('');
  const [limit, setLimit] = useState('');
  const [maxTurns, setMaxTurns] = useState('10');
  const { failure, run } = useEngineAction();
  const submit = (event: SyntheticEvent) => {
    event.preventDefault();
    run(
      () =>
        api.call('datasets.traces', {
          dataset: props.dataset,
          teacher: teacher.trim(),
          split: 'train',
          ...(limit.trim() === '' ? {} : { limit: Number(limit) }),
          maxTurns: Number(maxTurns),
        }),
      props.onStarted,
    );
  };
  return (
    <form className="datasets-form inline" onSubmit={submit} data-testid="traces-form">
      <TextField
        label="teacher model"
        title="the teacher RLM's model: any spec (a frontier endpoint, scripted:FILE, ...)"
        value={teacher}
        placeholder="e.g. endpoint:Frontier"
        onChange={setTeacher}
        testId="traces-teacher"
      />
      <TextField
        label="questions (default: the whole train split)"
        value={limit}
        onChange={setLimit}
        number={{}}
      />
      <TextField label="turns" value={maxTurns} onChange={setMaxTurns} number={{}} />
      <button className="button" type="submit" data-testid="traces-start">
        Run teacher traces
      </button>
      <FailureLine failure={failure} />
    </form>
  );
}

function SftSetForm(props: {
  dataset: string;
  evals: readonly EvalSummary[];
  onMade: (name: string) => void;
}) {
  const api = useApi();
  const [evalId, setEvalId] = useState('');
  const [name, setName] = useState('');
  // The write-up warns that SFT on the whole set collapsed entropy: a few dozen by default.
  const [cap, setCap] = useState('32');
  const { failure, run } = useEngineAction();
  const chosen = evalId === '' ? (props.evals[0]?.id ?? '') : evalId;
  const submit = (event: SyntheticEvent) => {
    event.preventDefault();
    run(
      () =>
        api.call('sftSets.make', {
          dataset: props.dataset,
          evalId: chosen,
          name,
          cap: Number(cap),
        }),
      ({ set }) => {
        props.onMade(set.name);
      },
    );
  };
  return (
    <form className="datasets-form inline" onSubmit={submit} data-testid="sft-set-form">
      <label>
        from the eval
        <select
          value={chosen}
          onChange={(e) => {
            setEvalId(e.target.value);
          }}
          data-testid="sft-set-eval"
        >
          {props.evals.map((e) => (
            <option key={e.id} value={e.id}>
              {e.model} ({e.done} runs)
            </option>
          ))}
        </select>
      </label>
      <TextField label="SFT set name" value={name} onChange={setName} testId="sft-set-name" />
      <TextField
        label="cap"
        title="accepted runs kept at most (the rest are listed as over the cap)"
        value={cap}
        onChange={setCap}
        testId="sft-set-cap"
        number={{}}
      />
      <button className="button" type="submit" disabled={chosen === ''} data-testid="sft-set-make">
        Make SFT set
      </button>
      <FailureLine failure={failure} />
    </form>
  );
}

function SftSetRuns({ name, dataset }: { name: string; dataset: string }) {
  const api = useApi();
  const set = useEngineQuery(JSON.stringify(['sft-set', name]), () =>
    api.call('sftSets.get', { set: name }),
  );
  const questions = useEngineQuery(JSON.stringify(['sft-set-questions', dataset]), () =>
    api.call('datasets.get', { dataset, filter: {} }),
  );
  const texts = new Map(
    questions.status === 'ready' ? questions.value.questions.map((q) => [q.id, q.question]) : [],
  );
  if (set.status === 'failed')
    return (
      <p className="papers-failure" role="alert">
        {set.failure.name}: {set.failure.message}
      </p>
    );
  if (set.status !== 'ready') return null;
  return <RunsTable set={set.value.set} texts={texts} />;
}

function RunsTable({ set, texts }: { set: SftSet; texts: ReadonlyMap<string, string> }) {
  return (
    <table className="datasets-table" data-testid="sft-set-runs">
      <thead>
        <tr>
          <th>question</th>
          <th>span F1</th>
          <th>kept</th>
          <th>why not</th>
          <th>run</th>
        </tr>
      </thead>
      <tbody>
        {set.runs.map((run, i) => (
          <tr key={i} data-testid="sft-set-run" data-accepted={run.accepted}>
            <td title={run.questionId}>{texts.get(run.questionId) ?? run.questionId}</td>
            <td>{run.spanF1 === null ? '–' : run.spanF1.toFixed(3)}</td>
            <td>{run.accepted ? 'accepted' : 'rejected'}</td>
            <td>{run.reason ?? ''}</td>
            <td>
              {run.runId && (
                <Link to={`/run?run=${encodeURIComponent(run.runId)}`} data-testid="sft-run-open">
                  open in the debugger
                </Link>
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
