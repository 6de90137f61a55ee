// The saved endpoints as the engine lists them (never with keys), loaded on mount and again
// whenever any window changes them (models.endpointsChanged).
import { useCallback, useEffect, useState } from 'react';
import type { ModelEndpointView } from '../../../../app/api/index.ts';
import { useApi } from '../../api/ApiContext.tsx';
import { useApiEvent } from '../../api/useApiEvent.ts';

export interface Failure {
  name: string;
  message: string;
}

export type EndpointsState =
  | { status: 'loading' }
  | { status: 'ready'; endpoints: ModelEndpointView[] }
  | { status: 'failed'; failure: Failure };

export function describeFailure(error: unknown): Failure {
  if (error instanceof Error) return { name: error.name, message: error.message };
  return { name: 'Error', message: String(error) };
}

export function useModelEndpoints(): EndpointsState {
  const api = useApi();
  const [state, setState] = useState<EndpointsState>({ status: 'loading' });
  const [generation, setGeneration] = useState(0);
  const reload = useCallback(() => {
    setGeneration((n) => n + 1);
  }, []);
  useApiEvent('models.endpointsChanged', reload);

  useEffect(() => {
    let live = true;
    api.call('models.endpoints', {}).then(
      ({ endpoints }) => {
        if (live) setState({ status: 'ready', endpoints });
      },
      (error: unknown) => {
        if (live) setState({ status: 'failed', failure: describeFailure(error) });
      },
    );
    return () => {
      live = false;
    };
  }, [api, generation]);

  return state;
}
