// The runs that pass the filters, reloaded when runs are created, finished, imported or deleted.
import { useEffect, useState } from 'react';
import type { RunFilter, RunSummaryPayload } from '../../../../app/api/index.ts';
import { useApi } from '../../api/ApiContext.tsx';
import { useApiEvent } from '../../api/useApiEvent.ts';
import { describeFailure, type Failure } from '../papers/failure.ts';

export type RunsList =
  | { status: 'loading' }
  | { status: 'ready'; runs: RunSummaryPayload[] }
  | { status: 'failed'; failure: Failure };

export function useRunsList(filter: RunFilter): { list: RunsList; reload: () => void } {
  const api = useApi();
  const [list, setList] = useState<RunsList>({ status: 'loading' });
  const [generation, setGeneration] = useState(0);
  const key = JSON.stringify(filter);
  const reload = () => {
    setGeneration((n) => n + 1);
  };
  useApiEvent('runs.changed', reload);
  useApiEvent('runs.event', (event) => {
    if (event.event.kind === 'run.started' || event.event.kind === 'run.finished') reload();
  });
  useEffect(() => {
    let live = true;
    const parsed = JSON.parse(key) as RunFilter;
    api.call('runs.list', parsed).then(
      ({ runs }) => {
        if (live) setList({ status: 'ready', runs });
      },
      (error: unknown) => {
        if (live) setList({ status: 'failed', failure: describeFailure(error) });
      },
    );
    return () => {
      live = false;
    };
  }, [api, key, generation]);
  return { list, reload };
}
