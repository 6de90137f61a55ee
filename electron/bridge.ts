// The preload's two halves, kept free of the electron import so tests drive them with fakes: a
// Transport over ipcRenderer, and the exposure of the client's call/on/onAny (nothing else).
import {
  ipcChannels,
  exposedApiKey,
  serializeError,
  type ApiClient,
  type ExposedApi,
  type Transport,
} from '../app/api/index.ts';

/** The part of Electron's ipcRenderer the transport uses; the real ipcRenderer satisfies it. */
export interface IpcRendererLike {
  invoke(channel: string, ...args: unknown[]): Promise<unknown>;
  on(channel: string, listener: (event: unknown, ...args: unknown[]) => void): unknown;
  removeListener(channel: string, listener: (event: unknown, ...args: unknown[]) => void): unknown;
}

/** The part of Electron's contextBridge the preload uses. */
export interface ContextBridgeLike {
  exposeInMainWorld(key: string, api: ExposedApi): void;
}

/** The IPC invoke itself failed (no handler in the main process, or the main process died). */
export class IpcInvokeError extends Error {
  override readonly name = 'IpcInvokeError';
  constructor(command: string, cause: unknown) {
    const detail = cause instanceof Error ? cause.message : String(cause);
    super(
      `The desktop shell did not answer '${command}' (${detail}); restart RLM Studio, and report it if it recurs`,
    );
  }
}

export function createIpcTransport(ipcRenderer: IpcRendererLike): Transport {
  let frameSink: ((frame: unknown) => void) | null = null;
  const onEvent = (_event: unknown, ...args: unknown[]) => {
    frameSink?.({ kind: 'event', event: args[0] });
  };

  return {
    send(frame) {
      ipcRenderer.invoke(ipcChannels.request, frame).then(
        (response) => frameSink?.(response),
        (error: unknown) => {
          // Answer the pending call instead of leaving it hanging: the client rejects it by id.
          const wire = serializeError(new IpcInvokeError(frame.command, error));
          frameSink?.({ kind: 'response', id: frame.id, ok: false, error: wire });
        },
      );
    },
    onFrame(sink) {
      frameSink = sink;
      ipcRenderer.on(ipcChannels.event, onEvent);
    },
    onClose() {
      // IPC lives as long as the page: there is no lasting disconnect to report.
    },
    close() {
      ipcRenderer.removeListener(ipcChannels.event, onEvent);
      frameSink = null;
    },
  };
}

/** Exposes exactly call/on/onAny, each bound to the client, under window[exposedApiKey]. */
export function exposeApi(contextBridge: ContextBridgeLike, client: ApiClient): void {
  const api: ExposedApi = {
    call: (command, request) => client.call(command, request),
    on: (kind, listener) => client.on(kind, listener),
    onAny: (listener) => client.onAny(listener),
  };
  contextBridge.exposeInMainWorld(exposedApiKey, api);
}
