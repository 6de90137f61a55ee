// Runs: the history with search and filters (status, model, paper set, score, duration, date), pick
// runs to compare two side by side, export as JSON lines or delete; import logs (ours, alexzhang13/rlm,
// SkyRL). Filters and the compared pair live in the URL.
import { useEffect, useEffectEvent, useState } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { useApi } from '../api/ApiContext.tsx';
import { describeFailure, type Failure } from './papers/failure.ts';
import { useEngineQuery } from './papers/use-engine-query.ts';
import { CompareRuns } from './runs/CompareRuns.tsx';
import { ImportRuns } from './runs/ImportRuns.tsx';
import { RunsTable } from './runs/RunsTable.tsx';
import {
  readRunsLocation,
  runsHref,
  toRunFilter,
  type RunsFilterFields,
} from './runs/runs-route.ts';
import { useRunsList } from './runs/useRunsList.ts';
import '../styles/papers.css';
import '../styles/run.css';
import { countOf } from '../format/count.ts';

const statuses = ['running', 'done', 'failed', 'canceled', 'interrupted'] as const;

export function RunsView() {
  const api = useApi();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const location = readRunsLocation(params);
  const [fields, setFields] = useState<RunsFilterFields>(location.filters);
  const filterKey = JSON.stringify(fields);
  // Typing updates the URL (and so the list) after a short pause; the compared pair stays. Nothing
  // is written when the URL already holds these filters, or once the user has left for another view
  // (while that view's code loads, this one is still mounted and its timer would pull them back).
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
  const { list } = useRunsList(toRunFilter(location.filters));
  const sets = useEngineQuery('sets', async () => (await api.call('papers.sets', {})).sets);
  const [picked, setPicked] = useState<Set<string>>(new Set());
  const [notice, setNotice] = useState<string | null>(null);
  const [failure, setFailure] = useState<Failure | null>(null);

  const toggle = (runId: string) => {
    setPicked((previous) => {
      const next = new Set(previous);
      if (next.has(runId)) next.delete(runId);
      else next.add(runId);
      return next;
    });
  };
  const set = (field: keyof RunsFilterFields, value: string) => {
    setFields((previous) => ({ ...previous, [field]: value }));
  };
  const pickedIds = [...picked];

  const exportPicked = async () => {
    setFailure(null);
    try {
      const { text, fileName } = await api.call('runs.export', { runIds: pickedIds });
      const url = URL.createObjectURL(new Blob([text], { type: 'application/x-ndjson' }));
      const link = document.createElement('a');
      link.href = url;
      link.download = fileName;
      link.click();
      URL.revokeObjectURL(url);
      setNotice(`Exported ${countOf(pickedIds.length, 'run')} as ${fileName}`);
    } catch (error) {
      setFailure(describeFailure(error));
    }
  };
  const deletePicked = async () => {
    if (
      !window.confirm(
        `Delete ${countOf(pickedIds.length, 'run')} and their events? This cannot be undone.`,
      )
    )
      return;
    setFailure(null);
    let deleted = 0;
    for (const runId of pickedIds) {
      try {
        if ((await api.call('runs.delete', { runId })).deleted) deleted++;
      } catch (error) {
        setFailure(describeFailure(error));
      }
    }
    setPicked(new Set());
    setNotice(`Deleted ${countOf(deleted, 'run')}`);
  };

  return (
    <section className="view runs-view" data-testid="view-runs" aria-labelledby="view-runs-title">
      <h1 id="view-runs-title">Runs</h1>
      <form
        className="runs-filters"
        data-testid="runs-filters"
        onSubmit={(event) => {
          event.preventDefault();
        }}
      >
        <input
          type="search"
          placeholder="Search questions, answers, models, ids"
          data-testid="runs-search"
          value={fields.text}
          onChange={(event) => {
            set('text', event.target.value);
          }}
        />
        <select
          aria-label="Status"
          data-testid="runs-status"
          value={fields.status}
          onChange={(event) => {
            set('status', event.target.value);
          }}
        >
          <option value="">any status</option>
          {statuses.map((status) => (
            <option key={status} value={status}>
              {status}
            </option>
          ))}
        </select>
        <input
          placeholder="model"
          aria-label="Model"
          data-testid="runs-model"
          value={fields.model}
          onChange={(event) => {
            set('model', event.target.value);
          }}
        />
        <select
          aria-label="Paper set"
          data-testid="runs-set"
          value={fields.set}
          onChange={(event) => {
            set('set', event.target.value);
          }}
        >
          <option value="">any paper set</option>
          {sets.status === 'ready' &&
            sets.value.map((entry) => (
              <option key={entry.name} value={entry.name}>
                {entry.name}
              </option>
            ))}
        </select>
        <input
          placeholder="min score"
          aria-label="Minimum score"
          inputMode="decimal"
          className="runs-narrow"
          value={fields.minScore}
          onChange={(event) => {
            set('minScore', event.target.value);
          }}
        />
        <input
          placeholder="max seconds"
          aria-label="Maximum duration in seconds"
          inputMode="numeric"
          className="runs-narrow"
          value={fields.maxDurationS}
          onChange={(event) => {
            set('maxDurationS', event.target.value);
          }}
        />
        <input
          type="date"
          aria-label="From"
          value={fields.from}
          onChange={(event) => {
            set('from', event.target.value);
          }}
        />
        <input
          type="date"
          aria-label="To"
          value={fields.to}
          onChange={(event) => {
            set('to', event.target.value);
          }}
        />
      </form>
      <div className="runs-actions">
        <button
          type="button"
          className="run-button"
          data-testid="runs-compare"
          disabled={pickedIds.length !== 2}
          onClick={() => {
            const [a = '', b = ''] = pickedIds;
            void navigate(runsHref({ filters: location.filters, compare: [a, b] }));
          }}
        >
          Compare two
        </button>
        <button
          type="button"
          className="run-button"
          data-testid="runs-export"
          disabled={pickedIds.length === 0}
          onClick={() => void exportPicked()}
        >
          Export
        </button>
        <button
          type="button"
          className="run-button"
          data-testid="runs-delete"
          disabled={pickedIds.length === 0}
          onClick={() => void deletePicked()}
        >
          Delete
        </button>
        <span className="papers-muted">{pickedIds.length} picked</span>
        {notice && (
          <span className="papers-muted" role="status" data-testid="runs-notice">
            {notice}
          </span>
        )}
        {failure && (
          <span className="run-failure" role="alert">
            {failure.name}: {failure.message}
          </span>
        )}
      </div>
      <ImportRuns />
      {location.compare && (
        <CompareRuns
          key={location.compare.join(',')}
          pair={location.compare}
          onClose={() => {
            void navigate(runsHref({ filters: location.filters }));
          }}
        />
      )}
      {list.status === 'failed' ? (
        <p className="run-failure" role="alert">
          The runs could not be listed. {list.failure.name}: {list.failure.message}
        </p>
      ) : list.status === 'loading' ? (
        <p className="papers-muted">Loading runs…</p>
      ) : list.runs.length === 0 ? (
        <p className="papers-muted" data-testid="runs-empty">
          No runs match. Start one in Run, or import a log.
        </p>
      ) : (
        <RunsTable runs={list.runs} picked={picked} onToggle={toggle} />
      )}
    </section>
  );
}
