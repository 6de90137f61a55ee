// The start form: paper set, question, model spec (saved endpoints offered) and budgets. Starting
// opens the new run in the view; a refusal from the engine (a bad model spec, an unknown set) shows
// its named error here.
import { useState, type ReactNode, type SubmitEvent } from 'react';
import { useNavigate } from 'react-router';
import type { CommandRequest, ModelEndpointView } from '../../../../app/api/index.ts';
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

/** Starts the run and opens it; a refusal from the engine is kept to show. */
function useStartRun() {
  const api = useApi();
  const navigate = useNavigate();
  const [failure, setFailure] = useState<Failure | null>(null);
  const [starting, setStarting] = useState(false);
  const start = (request: CommandRequest<'runs.start'>) => {
    setFailure(null);
    setStarting(true);
    api.call('runs.start', request).then(
      ({ runId }) => {
        void navigate(runHref({ runId }));
      },
      (error: unknown) => {
        setStarting(false);
        setFailure(describeFailure(error));
      },
    );
  };
  return { start, failure, starting };
}

// The form's fields are components and starting is useStartRun; what is left is their wiring.
export function StartRunForm() {
  const api = useApi();
  const sets = useEngineQuery('sets', async () => (await api.call('papers.sets', {})).sets, {
    refreshOn: 'papers.setsChanged',
  });
  const endpoints = useEngineQuery(
    'endpoints',
    async () => (await api.call('models.endpoints', {})).endpoints,
  );
  const [fields, setFields] = useState<StartFormFields>(emptyStartForm);
  const [shown, setShown] = useState<Record<string, string>>({});
  const { start, failure, starting } = useStartRun();
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
    start(check.request);
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
      <SetField
        setNames={setNames}
        chosenSet={chosenSet}
        fields={fields}
        onChange={setFields}
        problem={problem}
      />
      <QuestionField fields={fields} onChange={setFields} problem={problem} />
      <ModelField
        fields={fields}
        onChange={setFields}
        endpoints={endpoints.status === 'ready' ? endpoints.value : []}
        problem={problem}
      />
      <BudgetFields fields={fields} onChange={setFields} problem={problem} />
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

interface FieldProps {
  fields: StartFormFields;
  onChange: (fields: StartFormFields) => void;
  problem: (field: string) => ReactNode;
}

function SetField({
  setNames,
  chosenSet,
  fields,
  onChange,
  problem,
}: FieldProps & { setNames: readonly string[]; chosenSet: string }) {
  return (
    <label className="run-form-field">
      <span>Paper set</span>
      <select
        data-testid="run-set"
        value={chosenSet}
        onChange={(event) => {
          onChange({ ...fields, set: event.target.value });
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
  );
}

function QuestionField({ fields, onChange, problem }: FieldProps) {
  return (
    <label className="run-form-field">
      <span>Question</span>
      <textarea
        data-testid="run-question"
        rows={3}
        value={fields.question}
        onChange={(event) => {
          onChange({ ...fields, question: event.target.value });
        }}
      />
      {problem('question')}
    </label>
  );
}

/** The model spec, with the saved endpoints' specs offered. */
function ModelField({
  fields,
  onChange,
  endpoints,
  problem,
}: FieldProps & { endpoints: readonly ModelEndpointView[] }) {
  return (
    <label className="run-form-field">
      <span>Model</span>
      <input
        data-testid="run-model"
        list="run-model-specs"
        placeholder="openai:gpt-4o-mini, vllm:Qwen/Qwen3-8B@http://host:8000/v1, scripted:FILE"
        value={fields.model}
        onChange={(event) => {
          onChange({ ...fields, model: event.target.value });
        }}
      />
      <datalist id="run-model-specs">
        {endpoints.map((endpoint) => (
          <option key={endpoint.id} value={endpoint.spec}>
            {endpoint.name}
          </option>
        ))}
      </datalist>
      {problem('model')}
    </label>
  );
}

function BudgetFields({ fields, onChange, problem }: FieldProps) {
  return (
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
              onChange({
                ...fields,
                budgets: { ...fields.budgets, [field]: event.target.value },
              });
            }}
          />
          {problem(field)}
        </label>
      ))}
    </fieldset>
  );
}
