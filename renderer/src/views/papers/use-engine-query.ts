// Loads one engine answer for a key (a set, a paper, a query) and reloads it when the key changes
// or, if asked, on an engine event (the paper sets or the jobs changed) or a new reload token.
// While a new key loads, the old value stays out of sight: the answer always belongs to the key
// that is shown; while the same key reloads, the old value stays on screen until the new one.
import { useEffect, useEffectEvent, useState } from 'react';
import type { ApiEventKind } from '../../../../app/api/index.ts';
import { useApiEvent } from '../../api/useApiEvent.ts';
import { describeFailure, type Failure } from './failure.ts';

export type QueryState<T> =
  | { status: 'idle' }
  | { status: 'loading' }
  | { status: 'ready'; value: T }
  | { status: 'failed'; failure: Failure };

interface Answer<T> {
  key: string;
  state: QueryState<T>;
}

export interface EngineQueryOptions {
  /**
   * Reload on this event (e.g. 'papers.setsChanged': imports and removals), keeping the old value
   * until the new one is in.
   */
  refreshOn?: ApiEventKind;
  /** Reload whenever this changes (e.g. after the view itself started something), likewise. */
  reloadToken?: number;
}

/** `key` null means "nothing to load" (the state is 'idle'). */
export function useEngineQuery<T>(
  key: string | null,
  load: () => Promise<T>,
  options: EngineQueryOptions = {},
): QueryState<T> {
  const [answer, setAnswer] = useState<Answer<T> | null>(null);
  const [generation, setGeneration] = useState(0);
  const loadNow = useEffectEvent(load);
  const refreshOn = options.refreshOn ?? null;

  useApiEvent(refreshOn ?? 'papers.setsChanged', () => {
    if (refreshOn !== null) setGeneration((n) => n + 1);
  });

  useEffect(() => {
    if (key === null) return;
    let live = true;
    loadNow().then(
      (value) => {
        if (live) setAnswer({ key, state: { status: 'ready', value } });
      },
      (error: unknown) => {
        if (live) setAnswer({ key, state: { status: 'failed', failure: describeFailure(error) } });
      },
    );
    return () => {
      live = false;
    };
  }, [key, generation, options.reloadToken]);

  if (key === null) return { status: 'idle' };
  if (answer?.key !== key) return { status: 'loading' };
  return answer.state;
}
