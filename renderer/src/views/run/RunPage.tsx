// One open run: its header (question, status, totals, live/replay, cancel), the agent tree and the
// selected agent's inspector, with the keyboard and `/` search. Where it stands (run, agent, turn,
// mode) lives in the URL, so a link opens the same place.
import {
  useDeferredValue,
  useEffect,
  useEffectEvent,
  useMemo,
  useRef,
  useState,
  useSyncExternalStore,
} from 'react';
import { Link, useNavigate } from 'react-router';
import { type RunSummaryPayload } from '../../../../app/api/index.ts';
import { searchTree, type AgentNode, type TurnView } from '../../../../app/run-log/index.ts';
import { useApi } from '../../api/ApiContext.tsx';
import { formatCost, formatDuration, formatTokens } from './agent-summary.ts';
import { AgentTree } from './AgentTree.tsx';
import { EvidencePanel } from './EvidencePanel.tsx';
import { ReplayControls } from './ReplayControls.tsx';
import type { ReplayPlayer } from './replay.ts';
import { runHref, type RunLocation } from './route.ts';
import type { RunStore } from './run-store.ts';
import { agentOrder, navigate as move, navigationKeys, type Selection } from './tree-navigation.ts';
import { TurnInspector } from './TurnInspector.tsx';
import { useRunSession } from './useRunSession.ts';
import { countOf } from '../../format/count.ts';

const emptyMatches: ReadonlySet<string> = new Set();
/** Enough for every agent of a large run to be marked when each has a few hits. */
const maxHits = 5000;

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

function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return (
    target.isContentEditable ||
    ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName) ||
    target.closest('.monaco-editor') !== null
  );
}

function OpenRun({ location, store, summary, replay, onFork }: OpenRunProps) {
  const api = useApi();
  const navigate = useNavigate();
  const snapshot = useSyncExternalStore(store.subscribe, store.getSnapshot);
  const { view } = snapshot;
  const events = store.events();
  const started = events[0]?.kind === 'run.started' ? events[0] : undefined;
  const now = events.at(-1)?.at ?? 0;
  // The agent order and search follow the tree's shape, and the text at most every 32 flushes.
  const order = useMemo(() => agentOrder(view), [view, snapshot.structure]);
  const [query, setQuery] = useState('');
  const deferredQuery = useDeferredValue(query);
  const textEpoch = Math.floor(snapshot.version / 32);
  const search = useMemo(() => {
    const hits = searchTree(view, deferredQuery, { limit: maxHits });
    return { hits, agents: new Set(hits.map((hit) => hit.agentId)) };
  }, [view, deferredQuery, textEpoch]);
  const [hitIndex, setHitIndex] = useState(0);
  const searchBox = useRef<HTMLInputElement>(null);

  // The selection lives in the URL, but the router commits it later (in a transition), so keys read
  // `latest`, the one last asked for. A committed location replaces it only when it is not one of our
  // own requests arriving late (a link, Back).
  const latest = useRef<Selection>({ agentId: location.agentId, turn: location.turn });
  const requested = useRef<string[]>([]);
  const locationKey = `${location.agentId ?? ''}/${String(location.turn ?? '')}`;
  useEffect(() => {
    const index = requested.current.indexOf(locationKey);
    if (index >= 0) requested.current.splice(0, index + 1);
    else latest.current = { agentId: location.agentId, turn: location.turn };
  }, [locationKey, location.agentId, location.turn]);
  const select = (next: Selection) => {
    latest.current = next;
    requested.current.push(`${next.agentId ?? ''}/${String(next.turn ?? '')}`);
    void navigate(
      runHref({
        runId: location.runId,
        agentId: next.agentId,
        turn: next.turn,
        mode: location.mode,
      }),
      { replace: true },
    );
  };
  const openAgent = (agentId: string) => {
    const turns = view.agents.get(agentId)?.turns ?? [];
    select({ agentId, turn: turns.at(-1)?.turn });
  };
  const goToHit = (index: number) => {
    const count = search.hits.length;
    if (count === 0) return;
    const wrapped = ((index % count) + count) % count;
    setHitIndex(wrapped);
    const hit = search.hits[wrapped];
    if (hit) select({ agentId: hit.agentId, turn: hit.turn ?? undefined });
  };

  /** Enter goes to the current hit, or once it is shown on to the next (Shift: previous) place. */
  const onSearchEnter = (backwards: boolean) => {
    const { hits } = search;
    const place = (index: number) => {
      const hit = hits[((index % hits.length) + hits.length) % hits.length];
      return hit ? `${hit.agentId}/${String(hit.turn ?? '')}` : '';
    };
    const shown = `${latest.current.agentId ?? ''}/${String(latest.current.turn ?? '')}`;
    if (place(hitIndex) !== shown) {
      goToHit(hitIndex);
      return;
    }
    const step = backwards ? -1 : 1;
    let next = hitIndex + step;
    // Several hits in one turn are one place: skip to the next place.
    while (place(next) === shown && Math.abs(next - hitIndex) < hits.length) next += step;
    goToHit(next);
  };

  const onKey = useEffectEvent((event: KeyboardEvent) => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.key === 'Escape') {
      if (query !== '' || document.activeElement === searchBox.current) {
        setQuery('');
        searchBox.current?.blur();
      } else if (latest.current.agentId !== undefined)
        select({ agentId: undefined, turn: undefined });
      else return;
      event.preventDefault();
      return;
    }
    if (isTyping(event.target)) return;
    if (event.key === '/') {
      event.preventDefault();
      searchBox.current?.focus();
      searchBox.current?.select();
      return;
    }
    if (replay) {
      const replayKeys: Record<string, () => void> = {
        ' ': () => {
          if (replay.getState().playing) replay.pause();
          else replay.play();
        },
        '.': () => {
          replay.step(1);
        },
        ',': () => {
          replay.step(-1);
        },
        ']': () => {
          replay.stepTurn(1);
        },
        '[': () => {
          replay.stepTurn(-1);
        },
      };
      const action = replayKeys[event.key];
      if (action) {
        event.preventDefault();
        action();
        return;
      }
    }
    const moveKind = navigationKeys[event.key];
    if (!moveKind) return;
    event.preventDefault();
    select(move(view, order, latest.current, moveKind));
  });
  useEffect(() => {
    const listener = (event: KeyboardEvent) => {
      onKey(event);
    };
    window.addEventListener('keydown', listener);
    return () => {
      window.removeEventListener('keydown', listener);
    };
  }, []);

  const selectedAgent =
    location.agentId !== undefined ? view.agents.get(location.agentId) : undefined;
  const root = view.agents.get('0');
  const finished = view.status !== 'running';
  const running = !finished && location.mode === 'live';
  const duration = (view.finishedAt ?? now) - (view.startedAt ?? now);

  return (
    <section
      className="run-page"
      data-testid="run-page"
      data-run={location.runId}
      data-mode={location.mode}
      data-status={view.status}
      aria-labelledby="run-title"
    >
      <header className="run-head">
        <div className="run-head-main">
          <h1 id="run-title" className="run-question" data-testid="run-question">
            {view.question || summary.question}
          </h1>
          <p className="papers-muted run-facts">
            <span className={`state-pill run-${view.status}`} data-testid="run-status">
              {view.status}
            </span>{' '}
            {started?.set ?? summary.set} · {started?.model ?? summary.model} ·{' '}
            {countOf(view.agents.size, 'agent')} ·{' '}
            {formatTokens(view.inputTokens + view.outputTokens)} tokens · {formatCost(view.costUsd)}{' '}
            · {formatDuration(Math.max(0, duration))}
            {summary.parentRunId !== null && (
              <>
                {' · fork of '}
                <Link to={runHref({ runId: summary.parentRunId })} className="papers-link">
                  {summary.parentRunId}
                </Link>
              </>
            )}
          </p>
        </div>
        <div className="run-head-actions">
          {running && (
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
          {location.mode === 'live' ? (
            finished && (
              <Link
                className="run-button"
                data-testid="run-replay-link"
                to={runHref({ runId: location.runId, mode: 'replay' })}
              >
                Replay
              </Link>
            )
          ) : (
            <Link
              className="run-button"
              data-testid="run-live-link"
              to={runHref({ runId: location.runId })}
            >
              Whole run
            </Link>
          )}
          <Link className="run-button" to={runHref({})}>
            New run
          </Link>
        </div>
      </header>
      {replay && <ReplayControls player={replay} />}
      <div className="run-search">
        <input
          ref={searchBox}
          type="search"
          data-testid="tree-search"
          placeholder="Search prompts, code and output  ( / )"
          value={query}
          onChange={(event) => {
            setQuery(event.target.value);
            setHitIndex(0);
          }}
          onKeyDown={(event) => {
            if (event.key !== 'Enter') return;
            event.preventDefault();
            onSearchEnter(event.shiftKey);
          }}
        />
        {query.trim() !== '' && (
          <span className="papers-muted" data-testid="tree-search-count" role="status">
            {countOf(search.agents.size, 'agent')}, {countOf(search.hits.length, 'hit')}
            {search.hits[hitIndex] &&
              ` · Enter: hit ${String(hitIndex + 1)} (${search.hits[hitIndex].field}: ${search.hits[hitIndex].snippet})`}
          </span>
        )}
        <span className="papers-muted run-keys">
          ←/→ h/l agents · ↑/↓ k/j turns · / search · Esc back
          {replay && ' · space play · , . event · [ ] turn'}
        </span>
      </div>
      <div className={`run-body${selectedAgent ? ' inspecting' : ''}`}>
        <AgentTree
          snapshot={snapshot}
          selectedId={location.agentId}
          matches={query.trim() === '' ? emptyMatches : search.agents}
          now={now}
          onSelect={openAgent}
        />
        {selectedAgent ? (
          <TurnInspector
            view={view}
            agent={selectedAgent}
            turn={location.turn}
            now={now}
            onSelectTurn={(turn) => {
              select({ agentId: selectedAgent.id, turn });
            }}
            onOpenAgent={openAgent}
            onFork={
              onFork && finished && location.mode === 'live'
                ? (agent, turn) => {
                    onFork(location.runId, agent, turn);
                  }
                : undefined
            }
          />
        ) : (
          <aside className="turn-inspector empty">
            <p className="papers-muted">Click an agent (or press → ) to inspect its turns.</p>
            {finished && root?.state === 'done' && started && (
              <EvidencePanel
                set={started.set}
                paperIds={started.papers}
                answer={view.answer ?? root.answer}
                runId={location.runId}
              />
            )}
            {view.error && (
              <p className="run-failure" role="alert">
                {view.error.name}: {view.error.message}
              </p>
            )}
          </aside>
        )}
      </div>
    </section>
  );
}
