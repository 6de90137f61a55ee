// The start form: paper set, question, model spec (saved endpoints offered) and budgets. Starting
// opens the new run in the view; a refusal from the engine (a bad model spec, an unknown set) shows
// its named error here.
import { useState, type SubmitEvent } from 'react';
import { useNavigate } from 'react-router';
import { useApi } from '../../api/ApiContext.tsx';
import { describeFailure, type Failure } from '../papers/failure.ts';
import { useEngineQuery } from '../papers/use-engine-query.ts';
import { runHref } from './route.ts';
import {
  budgetLabels,
  checkStartForm,
  emptyStartForm,
  type BudgetField,
  type StartFormFields,
} from './start-form.ts';

export function StartRunForm() {
  const api = useApi();
  const navigate = useNavigate();
  const sets = useEngineQuery('sets', async () => (await api.call('papers.sets', {})).sets, {
    refreshOn: 'papers.setsChanged',
  });
  const endpoints = useEngineQuery(
    'endpoints',
    async () => (await api.call('models.endpoints', {})).endpoints,
  );
  const [fields, setFields] = useState<StartFormFields>(emptyStartForm);
  const [shown, setShown] = useState<Record<string, string>>({});
  const [failure, setFailure] = useState<Failure | null>(null);
  const [starting, setStarting] = useState(false);
  const setNames = sets.status === 'ready' ? sets.value.map((set) => set.name) : [];
  const chosenSet = fields.set !== '' ? fields.set : (setNames[0] ?? '');

  const submit = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    const check = checkStartForm({ ...fields, set: chosenSet });
    if (!check.ok) {
      setShown(check.problems);
      return;
    }
    setShown({});
    setFailure(null);
    setStarting(true);
    api.call('runs.start', check.request).then(
      ({ runId }) => {
        void navigate(runHref({ runId }));
      },
      (error: unknown) => {
        setStarting(false);
        setFailure(describeFailure(error));
      },
    );
  };

  const problem = (field: string) =>
    shown[field] ? (
      <span className="run-form-problem" role="alert">
        {shown[field]}
      </span>
    ) : null;

  return (
    <form className="run-form" data-testid="run-form" onSubmit={submit} noValidate>
      <h1 id="view-run-title">Run</h1>
      <p className="view-purpose">
        Ask a question of a paper set and watch the tree of agents unfold live.
      </p>
      <label className="run-form-field">
        <span>Paper set</span>
        <select
          data-testid="run-set"
          value={chosenSet}
          onChange={(event) => {
            setFields({ ...fields, set: event.target.value });
          }}
        >
          {setNames.length === 0 && (
            <option value="">No paper sets yet: import some in Papers</option>
          )}
          {setNames.map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
        </select>
        {problem('set')}
      </label>
      <label className="run-form-field">
        <span>Question</span>
        <textarea
          data-testid="run-question"
          rows={3}
          value={fields.question}
          onChange={(event) => {
            setFields({ ...fields, question: event.target.value });
          }}
        />
        {problem('question')}
      </label>
      <label className="run-form-field">
        <span>Model</span>
        <input
          data-testid="run-model"
          list="run-model-specs"
          placeholder="openai:gpt-4o-mini, vllm:Qwen/Qwen3-8B@http://host:8000/v1, scripted:FILE"
          value={fields.model}
          onChange={(event) => {
            setFields({ ...fields, model: event.target.value });
          }}
        />
        <datalist id="run-model-specs">
          {endpoints.status === 'ready' &&
            endpoints.value.map((endpoint) => (
              <option key={endpoint.id} value={endpoint.spec}>
                {endpoint.name}
              </option>
            ))}
        </datalist>
        {problem('model')}
      </label>
      <fieldset className="run-form-budgets">
        <legend>Budgets (empty: the engine&rsquo;s default)</legend>
        {(Object.keys(budgetLabels) as BudgetField[]).map((field) => (
          <label key={field} className="run-form-field small">
            <span>{budgetLabels[field]}</span>
            <input
              data-testid={`run-budget-${field}`}
              inputMode="numeric"
              value={fields.budgets[field]}
              onChange={(event) => {
                setFields({
                  ...fields,
                  budgets: { ...fields.budgets, [field]: event.target.value },
                });
              }}
            />
            {problem(field)}
          </label>
        ))}
      </fieldset>
      <button
        type="submit"
        className="run-button primary"
        data-testid="run-start"
        disabled={starting}
      >
        {starting ? 'Starting…' : 'Start run'}
      </button>
      {failure && (
        <p className="run-failure" role="alert" data-testid="run-start-failure">
          {failure.name}: {failure.message}
        </p>
      )}
    </form>
  );
}
