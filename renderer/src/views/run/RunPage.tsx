// One open run: its header (question, status, totals, live/replay, cancel), the agent tree and the
// selected agent's inspector, with the keyboard and `/` search. Where it stands (run, agent, turn,
// mode) lives in the URL, so a link opens the same place.
import { useSyncExternalStore } from 'react';
import { Link } from 'react-router';
import { type RunSummaryPayload } from '../../../../app/api/index.ts';
import type { AgentNode, RunView, TurnView } from '../../../../app/run-log/index.ts';
import { useApi } from '../../api/ApiContext.tsx';
import { formatCost, formatDuration, formatTokens } from './agent-summary.ts';
import { AgentTree } from './AgentTree.tsx';
import { EvidencePanel } from './EvidencePanel.tsx';
import { ReplayControls } from './ReplayControls.tsx';
import type { ReplayPlayer } from './replay.ts';
import { runHref, type RunLocation } from './route.ts';
import type { RunStore } from './run-store.ts';
import type { RunSnapshot } from './run-store.ts';
import { RunTraining, useRolloutTraining, type RolloutTrainingState } from './RunTraining.tsx';
import { TurnInspector } from './TurnInspector.tsx';
import {
  useRunKeys,
  useRunSelection,
  useTreeSearch,
  type RunSelection,
  type TreeSearch,
} from './useRunNavigation.ts';
import { useRunSession } from './useRunSession.ts';
import { countOf } from '../../format/count.ts';

const emptyMatches: ReadonlySet<string> = new Set();

export interface RunPageProps {
  location: RunLocation & { runId: string };
  onFork?: ((runId: string, agent: AgentNode, turn: TurnView) => void) | undefined;
}

export function RunPage({ location, onFork }: RunPageProps) {
  const session = useRunSession(location.runId, location.mode);
  if (session.status === 'loading') return <p className="view-loading">Opening the run…</p>;
  if (session.status === 'failed')
    return (
      <div className="run-page-message">
        <p className="run-failure" role="alert" data-testid="run-open-failure">
          This run could not be opened. {session.failure.name}: {session.failure.message}
        </p>
        <Link to={runHref({})} className="papers-link">
          Start a new run
        </Link>
      </div>
    );
  return (
    <OpenRun
      location={location}
      store={session.store}
      summary={session.summary}
      replay={session.replay}
      onFork={onFork}
    />
  );
}

interface OpenRunProps extends RunPageProps {
  store: RunStore;
  summary: RunSummaryPayload;
  replay: ReplayPlayer | null;
}

function OpenRun({ location, store, summary, replay, onFork }: OpenRunProps) {
  const snapshot = useSyncExternalStore(store.subscribe, store.getSnapshot);
  const { view } = snapshot;
  const events = store.events();
  const started = events[0]?.kind === 'run.started' ? events[0] : undefined;
  const now = events.at(-1)?.at ?? 0;
  const selection = useRunSelection(location, view);
  const search = useTreeSearch(snapshot, selection);
  useRunKeys(view, snapshot.structure, selection, search, replay);
  const training = useRolloutTraining(location.runId, location.training);
  const duration = (view.finishedAt ?? now) - (view.startedAt ?? now);
  const facts = {
    set: started?.set ?? summary.set,
    model: started?.model ?? summary.model,
    duration: Math.max(0, duration),
  };

  return (
    <section
      className="run-page"
      data-testid="run-page"
      data-run={location.runId}
      data-mode={location.mode}
      data-status={view.status}
      aria-labelledby="run-title"
    >
      <RunHeader
        view={view}
        summary={summary}
        location={location}
        facts={facts}
        training={training}
      />
      {replay && <ReplayControls player={replay} />}
      <RunSearchBar search={search} replaying={replay !== null} />
      <RunBody
        snapshot={snapshot}
        location={location}
        now={now}
        matches={search.query.trim() === '' ? emptyMatches : search.agents}
        selection={selection}
        started={started}
        onFork={onFork}
        training={training.byAgent}
      />
    </section>
  );
}

function RunHeader({
  view,
  summary,
  location,
  facts,
  training,
}: {
  view: RunView;
  summary: RunSummaryPayload;
  location: RunLocation & { runId: string };
  facts: { set: string; model: string; duration: number };
  training: RolloutTrainingState;
}) {
  return (
    <header className="run-head">
      <div className="run-head-main">
        <h1 id="run-title" className="run-question" data-testid="run-question">
          {view.question || summary.question}
        </h1>
        <p className="papers-muted run-facts">
          <span className={`state-pill run-${view.status}`} data-testid="run-status">
            {view.status}
          </span>{' '}
          {facts.set} · {facts.model} · {countOf(view.agents.size, 'agent')} ·{' '}
          {formatTokens(view.inputTokens + view.outputTokens)} tokens · {formatCost(view.costUsd)} ·{' '}
          {formatDuration(facts.duration)}
          {summary.parentRunId !== null && (
            <>
              {' · fork of '}
              <Link to={runHref({ runId: summary.parentRunId })} className="papers-link">
                {summary.parentRunId}
              </Link>
            </>
          )}
        </p>
        <RunTraining query={training.query} />
      </div>
      <RunActions location={location} finished={view.status !== 'running'} />
    </header>
  );
}

function RunActions({
  location,
  finished,
}: {
  location: RunLocation & { runId: string };
  finished: boolean;
}) {
  const api = useApi();
  const live = location.mode === 'live';
  return (
    <div className="run-head-actions">
      {!finished && live && (
        <button
          type="button"
          className="run-button"
          data-testid="run-cancel"
          onClick={() => {
            void api.call('runs.cancel', { runId: location.runId });
          }}
        >
          Cancel run
        </button>
      )}
      {live ? (
        finished && (
          <Link
            className="run-button"
            data-testid="run-replay-link"
            to={runHref({ runId: location.runId, mode: 'replay', training: location.training })}
          >
            Replay
          </Link>
        )
      ) : (
        <Link
          className="run-button"
          data-testid="run-live-link"
          to={runHref({ runId: location.runId, training: location.training })}
        >
          Whole run
        </Link>
      )}
      <Link className="run-button" to={runHref({})}>
        New run
      </Link>
    </div>
  );
}

function RunSearchBar({ search, replaying }: { search: TreeSearch; replaying: boolean }) {
  const current = search.hits[search.hitIndex];
  return (
    <div className="run-search">
      <input
        ref={search.box}
        type="search"
        data-testid="tree-search"
        placeholder="Search prompts, code and output  ( / )"
        value={search.query}
        onChange={(event) => {
          search.setQuery(event.target.value);
        }}
        onKeyDown={(event) => {
          if (event.key !== 'Enter') return;
          event.preventDefault();
          search.onEnter(event.shiftKey);
        }}
      />
      {search.query.trim() !== '' && (
        <span className="papers-muted" data-testid="tree-search-count" role="status">
          {countOf(search.agents.size, 'agent')}, {countOf(search.hits.length, 'hit')}
          {current &&
            ` · Enter: hit ${String(search.hitIndex + 1)} (${current.field}: ${current.snippet})`}
        </span>
      )}
      <span className="papers-muted run-keys">
        ←/→ h/l agents · ↑/↓ k/j turns · / search · Esc back
        {replaying && ' · space play · , . event · [ ] turn'}
      </span>
    </div>
  );
}

type RunStarted = Extract<ReturnType<RunStore['events']>[number], { kind: 'run.started' }>;

function RunBody({
  snapshot,
  location,
  now,
  matches,
  selection,
  started,
  onFork,
  training,
}: {
  snapshot: RunSnapshot;
  location: RunLocation & { runId: string };
  now: number;
  matches: ReadonlySet<string>;
  selection: RunSelection;
  started: RunStarted | undefined;
  onFork: RunPageProps['onFork'];
  training: RolloutTrainingState['byAgent'];
}) {
  const { view } = snapshot;
  const selectedAgent =
    location.agentId !== undefined ? view.agents.get(location.agentId) : undefined;
  const finished = view.status !== 'running';
  // A run is forked from once it has ended, and from the whole run, not a replay of it.
  const fork =
    onFork && finished && location.mode === 'live'
      ? (agent: AgentNode, turn: TurnView) => {
          onFork(location.runId, agent, turn);
        }
      : undefined;
  return (
    <div className={`run-body${selectedAgent ? ' inspecting' : ''}`}>
      <AgentTree
        snapshot={snapshot}
        selectedId={location.agentId}
        matches={matches}
        now={now}
        onSelect={selection.openAgent}
        training={training}
      />
      {selectedAgent ? (
        <TurnInspector
          view={view}
          agent={selectedAgent}
          turn={location.turn}
          now={now}
          onSelectTurn={(turn) => {
            selection.select({ agentId: selectedAgent.id, turn });
          }}
          onOpenAgent={selection.openAgent}
          onFork={fork}
        />
      ) : (
        <NoAgentSelected view={view} runId={location.runId} started={started} />
      )}
    </div>
  );
}

// With no agent picked, the aside shows the finished run's evidence and its error, if any.
function NoAgentSelected({
  view,
  runId,
  started,
}: {
  view: RunView;
  runId: string;
  started: RunStarted | undefined;
}) {
  const root = view.agents.get('0');
  return (
    <aside className="turn-inspector empty">
      <p className="papers-muted">Click an agent (or press → ) to inspect its turns.</p>
      {view.status !== 'running' && root?.state === 'done' && started && (
        <EvidencePanel
          set={started.set}
          paperIds={started.papers}
          answer={view.answer ?? root.answer}
          runId={runId}
        />
      )}
      {view.error && (
        <p className="run-failure" role="alert">
          {view.error.name}: {view.error.message}
        </p>
      )}
    </aside>
  );
}
