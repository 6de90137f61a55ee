// Hands the one EngineClient to every component. `useApi()` outside the provider is a wiring bug and
// throws at once instead of failing later on a null.
import { createContext, use, useSyncExternalStore, type ReactNode } from 'react';
import type { ConnectionState, EngineClient } from './connection.ts';

const ApiContext = createContext<EngineClient | null>(null);

export class MissingApiProviderError extends Error {
  override readonly name = 'MissingApiProviderError';
  constructor() {
    super('useApi() was called outside <ApiProvider>; wrap the app in <ApiProvider client={...}>');
  }
}

export function ApiProvider({ client, children }: { client: EngineClient; children: ReactNode }) {
  return <ApiContext value={client}>{children}</ApiContext>;
}

export function useApi(): EngineClient {
  const client = use(ApiContext);
  if (!client) throw new MissingApiProviderError();
  return client;
}

export function useConnectionState(): ConnectionState {
  const { connection } = useApi();
  return useSyncExternalStore(connection.subscribe, connection.current);
}
