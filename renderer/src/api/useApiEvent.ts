// Subscribes a component to one kind of engine event for as long as it is mounted. The listener may
// change every render without resubscribing.
import { useEffect, useEffectEvent } from 'react';
import type { ApiEventKind, ApiEventOf } from '../../../app/api/index.ts';
import { useApi } from './ApiContext.tsx';

export function useApiEvent<K extends ApiEventKind>(
  kind: K,
  listener: (event: ApiEventOf<K>) => void,
): void {
  const api = useApi();
  const onEvent = useEffectEvent(listener);
  useEffect(
    () =>
      api.on(kind, (event) => {
        onEvent(event);
      }),
    [api, kind],
  );
}
