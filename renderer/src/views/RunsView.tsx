// Runs: the history with search and filters (status, model, paper set, score, duration, date), pick
// runs to compare two side by side, export as JSON lines or delete; import logs (ours, alexzhang13/rlm,
// SkyRL, DSPy) or open a log folder to follow live (nano-rlm sessions, rlm logs being written).
// Filters and the compared pair live in the URL.
import { useNavigate, useSearchParams } from 'react-router';
import { CompareRuns } from './runs/CompareRuns.tsx';
import { FollowLogs } from './runs/FollowLogs.tsx';
import { ImportRuns } from './runs/ImportRuns.tsx';
import { PickedRunsActions, usePickedRuns } from './runs/PickedRuns.tsx';
import { RunsFilters } from './runs/RunsFilters.tsx';
import { RunsTable } from './runs/RunsTable.tsx';
import { readRunsLocation, runsHref, toRunFilter } from './runs/runs-route.ts';
import { useRunsList, type RunsList } from './runs/useRunsList.ts';
import '../styles/papers.css';
import '../styles/run.css';

export function RunsView() {
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const location = readRunsLocation(params);
  const { list } = useRunsList(toRunFilter(location.filters));
  const { picked, toggle, clear } = usePickedRuns();

  return (
    <section className="view runs-view" data-testid="view-runs" aria-labelledby="view-runs-title">
      <h1 id="view-runs-title">Runs</h1>
      <RunsFilters location={location} />
      <PickedRunsActions location={location} pickedIds={[...picked]} onDeleted={clear} />
      <ImportRuns />
      <FollowLogs />
      {location.compare && (
        <CompareRuns
          key={location.compare.join(',')}
          pair={location.compare}
          onClose={() => {
            void navigate(runsHref({ filters: location.filters }));
          }}
        />
      )}
      <RunsListBody list={list} picked={picked} onToggle={toggle} />
    </section>
  );
}

function RunsListBody({
  list,
  picked,
  onToggle,
}: {
  list: RunsList;
  picked: ReadonlySet<string>;
  onToggle: (runId: string) => void;
}) {
  if (list.status === 'failed')
    return (
      <p className="run-failure" role="alert">
        The runs could not be listed. {list.failure.name}: {list.failure.message}
      </p>
    );
  if (list.status === 'loading') return <p className="papers-muted">Loading runs…</p>;
  if (list.runs.length === 0)
    return (
      <p className="papers-muted" data-testid="runs-empty">
        No runs match. Start one in Run, or import a log.
      </p>
    );
  return <RunsTable runs={list.runs} picked={picked} onToggle={onToggle} />;
}
