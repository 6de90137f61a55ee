// The Runs view's filter bar. Typing updates the URL (and so the list) after a short pause; the
// compared pair stays.
import { useEffect, useEffectEvent, useState, type InputHTMLAttributes } from 'react';
import { useNavigate } from 'react-router';
import { useApi } from '../../api/ApiContext.tsx';
import { useEngineQuery } from '../papers/use-engine-query.ts';
import { runsHref, type RunsFilterFields, type RunsLocation } from './runs-route.ts';

const statuses = ['running', 'done', 'failed', 'canceled', 'interrupted'] as const;

type SetField = (field: keyof RunsFilterFields, value: string) => void;

// Nothing is written when the URL already holds these filters, or once the user has left for
// another view (while that view's code loads, this one is still mounted and its timer would pull
// them back).
function useFilterFields(location: RunsLocation): [RunsFilterFields, SetField] {
  const navigate = useNavigate();
  const [fields, setFields] = useState<RunsFilterFields>(location.filters);
  const filterKey = JSON.stringify(fields);
  const applyFilters = useEffectEvent((filters: RunsFilterFields) => {
    if (JSON.stringify(filters) === JSON.stringify(location.filters)) return;
    if (!window.location.hash.startsWith('#/runs')) return;
    void navigate(runsHref({ filters, compare: location.compare }), { replace: true });
  });
  useEffect(() => {
    const timer = window.setTimeout(() => {
      applyFilters(JSON.parse(filterKey) as RunsFilterFields);
    }, 200);
    return () => {
      window.clearTimeout(timer);
    };
  }, [filterKey]);
  const set: SetField = (field, value) => {
    setFields((previous) => ({ ...previous, [field]: value }));
  };
  return [fields, set];
}

function FilterInput({
  field,
  fields,
  set,
  ...rest
}: {
  field: keyof RunsFilterFields;
  fields: RunsFilterFields;
  set: SetField;
} & Omit<InputHTMLAttributes<HTMLInputElement>, 'value' | 'onChange'>) {
  return (
    <input
      {...rest}
      value={fields[field]}
      onChange={(event) => {
        set(field, event.target.value);
      }}
    />
  );
}

function FilterSelect({
  field,
  fields,
  set,
  label,
  any,
  options,
}: {
  field: keyof RunsFilterFields;
  fields: RunsFilterFields;
  set: SetField;
  label: string;
  any: string;
  options: readonly string[];
}) {
  return (
    <select
      aria-label={label}
      data-testid={`runs-${field}`}
      value={fields[field]}
      onChange={(event) => {
        set(field, event.target.value);
      }}
    >
      <option value="">{any}</option>
      {options.map((option) => (
        <option key={option} value={option}>
          {option}
        </option>
      ))}
    </select>
  );
}

export function RunsFilters({ location }: { location: RunsLocation }) {
  const api = useApi();
  const [fields, set] = useFilterFields(location);
  const sets = useEngineQuery('sets', async () => (await api.call('papers.sets', {})).sets);
  const setNames = sets.status === 'ready' ? sets.value.map((entry) => entry.name) : [];
  const common = { fields, set };
  return (
    <form
      className="runs-filters"
      data-testid="runs-filters"
      onSubmit={(event) => {
        event.preventDefault();
      }}
    >
      <FilterInput
        {...common}
        field="text"
        type="search"
        placeholder="Search questions, answers, models, ids"
        data-testid="runs-search"
      />
      <FilterSelect {...common} field="status" label="Status" any="any status" options={statuses} />
      <FilterInput
        {...common}
        field="model"
        placeholder="model"
        aria-label="Model"
        data-testid="runs-model"
      />
      <FilterSelect
        {...common}
        field="set"
        label="Paper set"
        any="any paper set"
        options={setNames}
      />
      <FilterInput
        {...common}
        field="minScore"
        placeholder="min score"
        aria-label="Minimum score"
        inputMode="decimal"
        className="runs-narrow"
      />
      <FilterInput
        {...common}
        field="maxDurationS"
        placeholder="max seconds"
        aria-label="Maximum duration in seconds"
        inputMode="numeric"
        className="runs-narrow"
      />
      <FilterInput {...common} field="from" type="date" aria-label="From" />
      <FilterInput {...common} field="to" type="date" aria-label="To" />
    </form>
  );
}
