// Where an open run's selection goes: the URL-backed selection, the `/` search over the tree and the
// keyboard (tree moves, replay keys, Escape). RunPage wires them to its header, tree and inspector.
import {
  useDeferredValue,
  useEffect,
  useEffectEvent,
  useMemo,
  useRef,
  useState,
  type RefObject,
} from 'react';
import { useNavigate } from 'react-router';
import { searchTree, type RunView, type TreeSearchHit } from '../../../../app/run-log/index.ts';
import type { ReplayPlayer } from './replay.ts';
import { runHref, type RunLocation } from './route.ts';
import type { RunSnapshot } from './run-store.ts';
import { agentOrder, navigate as move, navigationKeys, type Selection } from './tree-navigation.ts';

/** Enough for every agent of a large run to be marked when each has a few hits. */
const maxHits = 5000;

const placeKey = (selection: { agentId: string | undefined; turn: number | null | undefined }) =>
  `${selection.agentId ?? ''}/${String(selection.turn ?? '')}`;

export interface RunSelection {
  /** The selection last asked for, which the router may not have committed yet. */
  latest: RefObject<Selection>;
  select: (next: Selection) => void;
  openAgent: (agentId: string) => void;
}

// The selection lives in the URL, but the router commits it later (in a transition), so keys read
// `latest`, the one last asked for. A committed location replaces it only when it is not one of our
// own requests arriving late (a link, Back).
export function useRunSelection(
  location: RunLocation & { runId: string },
  view: RunView,
): RunSelection {
  const navigate = useNavigate();
  const latest = useRef<Selection>({ agentId: location.agentId, turn: location.turn });
  const requested = useRef<string[]>([]);
  const locationKey = placeKey(location);
  useEffect(() => {
    const index = requested.current.indexOf(locationKey);
    if (index >= 0) requested.current.splice(0, index + 1);
    else latest.current = { agentId: location.agentId, turn: location.turn };
  }, [locationKey, location.agentId, location.turn]);
  const select = (next: Selection) => {
    latest.current = next;
    requested.current.push(placeKey(next));
    const href = runHref({
      ...next,
      runId: location.runId,
      mode: location.mode,
      training: location.training,
    });
    void navigate(href, { replace: true });
  };
  const openAgent = (agentId: string) => {
    const turns = view.agents.get(agentId)?.turns ?? [];
    select({ agentId, turn: turns.at(-1)?.turn });
  };
  return { latest, select, openAgent };
}

export interface TreeSearch {
  query: string;
  setQuery: (query: string) => void;
  hits: readonly TreeSearchHit[];
  agents: ReadonlySet<string>;
  hitIndex: number;
  /** Enter goes to the current hit, or once it is shown on to the next (Shift: previous) place. */
  onEnter: (backwards: boolean) => void;
  box: RefObject<HTMLInputElement | null>;
}

export function useTreeSearch(snapshot: RunSnapshot, selection: RunSelection): TreeSearch {
  const { view } = snapshot;
  const [query, setQueryState] = useState('');
  const deferredQuery = useDeferredValue(query);
  // The text is searched again at most every 32 flushes.
  const textEpoch = Math.floor(snapshot.version / 32);
  const search = useMemo(() => {
    const hits = searchTree(view, deferredQuery, { limit: maxHits });
    return { hits, agents: new Set(hits.map((hit) => hit.agentId)) };
  }, [view, deferredQuery, textEpoch]);
  const [hitIndex, setHitIndex] = useState(0);
  const box = useRef<HTMLInputElement>(null);
  const { hits } = search;
  const wrap = (index: number) => ((index % hits.length) + hits.length) % hits.length;
  const goToHit = (index: number) => {
    if (hits.length === 0) return;
    setHitIndex(wrap(index));
    const hit = hits[wrap(index)];
    if (hit) selection.select({ agentId: hit.agentId, turn: hit.turn ?? undefined });
  };
  const onEnter = (backwards: boolean) => {
    const place = (index: number) => {
      const hit = hits[wrap(index)];
      return hit ? placeKey(hit) : '';
    };
    const shown = placeKey(selection.latest.current);
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
  const setQuery = (next: string) => {
    setQueryState(next);
    setHitIndex(0);
  };
  return { query, setQuery, hits, agents: search.agents, hitIndex, onEnter, box };
}

function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return (
    target.isContentEditable ||
    ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName) ||
    target.closest('.monaco-editor') !== null
  );
}

function replayAction(replay: ReplayPlayer, key: string): (() => void) | undefined {
  const actions: Record<string, () => void> = {
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
  return actions[key];
}

/** Escape clears the search, then the selection; `/` searches; the rest move or drive the replay. */
export function useRunKeys(
  view: RunView,
  structure: number,
  selection: RunSelection,
  search: TreeSearch,
  replay: ReplayPlayer | null,
) {
  // The agent order follows the tree's shape only.
  const order = useMemo(() => agentOrder(view), [view, structure]);
  const onEscape = (): boolean => {
    if (search.query !== '' || document.activeElement === search.box.current) {
      search.setQuery('');
      search.box.current?.blur();
    } else if (selection.latest.current.agentId !== undefined)
      selection.select({ agentId: undefined, turn: undefined });
    else return false;
    return true;
  };
  const onKey = useEffectEvent((event: KeyboardEvent) => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.key === 'Escape') {
      if (onEscape()) event.preventDefault();
      return;
    }
    if (isTyping(event.target)) return;
    if (event.key === '/') {
      event.preventDefault();
      search.box.current?.focus();
      search.box.current?.select();
      return;
    }
    const action = replay ? replayAction(replay, event.key) : undefined;
    if (action) {
      event.preventDefault();
      action();
      return;
    }
    const moveKind = navigationKeys[event.key];
    if (!moveKind) return;
    event.preventDefault();
    selection.select(move(view, order, selection.latest.current, moveKind));
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
}
