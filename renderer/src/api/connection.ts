// Finds the engine: the desktop shell's preload bridge when there is one, else the serve-mode
// WebSocket on this page's own origin (its auth cookie is already set). Views never know which.
import {
  createApiClient,
  createBridgeTransport,
  exposedApiKey,
  type ApiClient,
  type ExposedBridge,
  type Unsubscribe,
} from '../../../app/api/index.ts';
import { createWebSocketTransport, type OpenSocket } from './websocket-transport.ts';

export type ConnectionState =
  { status: 'connecting' } | { status: 'connected' } | { status: 'disconnected'; reason: string };

/** The connection's state as an external store (fits React's useSyncExternalStore). */
export interface ConnectionMonitor {
  current: () => ConnectionState;
  subscribe: (listener: () => void) => Unsubscribe;
}

export interface EngineClient extends Pick<ApiClient, 'call' | 'on' | 'onAny'> {
  readonly transport: 'ipc' | 'websocket';
  readonly connection: ConnectionMonitor;
}

/** The parts of `window` this module reads; tests pass a plain object. */
export interface EnginePage {
  location: Pick<Location, 'protocol' | 'host'>;
  [exposedApiKey]?: unknown;
}

export function engineSocketUrl(location: Pick<Location, 'protocol' | 'host'>): string {
  const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
  return `${scheme}://${location.host}/api`;
}

function isExposedBridge(value: unknown): value is ExposedBridge {
  return (
    typeof value === 'object' &&
    value !== null &&
    'request' in value &&
    typeof value.request === 'function' &&
    'onEvent' in value &&
    typeof value.onEvent === 'function'
  );
}

function createMonitor(initial: ConnectionState): ConnectionMonitor & {
  set: (state: ConnectionState) => void;
} {
  let state = initial;
  const listeners = new Set<() => void>();
  return {
    current: () => state,
    subscribe: (listener) => {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    set: (next) => {
      state = next;
      for (const listener of listeners) listener();
    },
  };
}

export function connectToEngine(page: EnginePage = window, openSocket?: OpenSocket): EngineClient {
  const bridge = page[exposedApiKey];
  if (isExposedBridge(bridge)) {
    // The preload exposes plain frames; the client lives here so errors are rebuilt on this side.
    // IPC to our own main process has no connection to lose.
    const client = createApiClient(createBridgeTransport(bridge));
    return {
      call: (command, request) => client.call(command, request),
      on: (kind, listener) => client.on(kind, listener),
      onAny: (listener) => client.onAny(listener),
      transport: 'ipc',
      connection: createMonitor({ status: 'connected' }),
    };
  }
  const transport = createWebSocketTransport(engineSocketUrl(page.location), openSocket);
  const monitor = createMonitor({ status: 'connecting' });
  transport.onOpen(() => {
    monitor.set({ status: 'connected' });
  });
  transport.onClose((reason) => {
    monitor.set({ status: 'disconnected', reason });
  });
  const client = createApiClient(transport);
  return {
    call: (command, request) => client.call(command, request),
    on: (kind, listener) => client.on(kind, listener),
    onAny: (listener) => client.onAny(listener),
    transport: 'websocket',
    connection: monitor,
  };
}
