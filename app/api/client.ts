// The one client every front end uses. It speaks frames over a Transport (Electron IPC or a
// WebSocket), validates what comes back and rebuilds remote errors. Pure: no DOM, no Node.
import {
  commands,
  isCommandName,
  type CommandName,
  type CommandRequest,
  type CommandResponse,
} from './commands.ts';
import { ApiDisconnectedError, RemoteCommandError, UnknownCommandError } from './errors.ts';
import type { ApiEvent, ApiEventKind, ApiEventOf } from './events.ts';
import { HostFrame, type RequestFrame, type ResponseFrame } from './protocol.ts';
import { parsePayload } from './validate.ts';

/** Carries frames to an engine and back. Implementations: WebSocket (serve mode), Electron IPC. */
export interface Transport {
  send(frame: RequestFrame): void;
  /** Registers the single frame sink; the client calls it once. */
  onFrame(sink: (frame: unknown) => void): void;
  /** Called once if the connection is lost for good. */
  onClose(sink: (reason: string) => void): void;
  close(): void;
}

export type Unsubscribe = () => void;

export interface ApiClient {
  call<C extends CommandName>(command: C, request: CommandRequest<C>): Promise<CommandResponse<C>>;
  on<K extends ApiEventKind>(kind: K, listener: (event: ApiEventOf<K>) => void): Unsubscribe;
  onAny(listener: (event: ApiEvent) => void): Unsubscribe;
  dispose(): void;
}

interface Pending {
  command: CommandName;
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

export function createApiClient(transport: Transport): ApiClient {
  const pending = new Map<number, Pending>();
  const listeners = new Set<(event: ApiEvent) => void>();
  let nextId = 1;
  let closedReason: string | null = null;

  const failAll = (reason: string) => {
    closedReason ??= reason;
    for (const [id, call] of pending) {
      pending.delete(id);
      call.reject(new ApiDisconnectedError(reason));
    }
  };

  transport.onClose(failAll);
  transport.onFrame((raw) => {
    let frame: HostFrame;
    try {
      frame = parsePayload(HostFrame, raw, 'frame from the engine');
    } catch (error) {
      reportProtocolError(error);
      return;
    }
    if (frame.kind === 'event') {
      for (const listener of listeners) listener(frame.event);
      return;
    }
    const call = pending.get(frame.id);
    if (!call) return;
    pending.delete(frame.id);
    settle(call, frame);
  });

  return {
    call(command, request) {
      if (!isCommandName(command)) return Promise.reject(new UnknownCommandError(command));
      if (closedReason !== null) return Promise.reject(new ApiDisconnectedError(closedReason));
      const id = nextId++;
      return new Promise((resolve, reject) => {
        pending.set(id, { command, resolve: resolve as (value: unknown) => void, reject });
        try {
          transport.send({ kind: 'request', id, command, payload: request });
        } catch (error) {
          pending.delete(id);
          reject(error instanceof Error ? error : new Error(String(error)));
        }
      });
    },
    on(kind, listener) {
      const filtered = (event: ApiEvent) => {
        if (event.kind === kind) listener(event as ApiEventOf<typeof kind>);
      };
      listeners.add(filtered);
      return () => listeners.delete(filtered);
    },
    onAny(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    dispose() {
      failAll('the client was disposed');
      listeners.clear();
      transport.close();
    },
  };
}

/** A pending call's answer: the checked result, the engine's named error, or a bad result. */
function settle(call: Pending, frame: ResponseFrame): void {
  if (!frame.ok) {
    call.reject(new RemoteCommandError(frame.error.name, frame.error.message, frame.error.fields));
    return;
  }
  try {
    call.resolve(
      parsePayload(commands[call.command].response, frame.result, `response of '${call.command}'`),
    );
  } catch (error) {
    call.reject(error instanceof Error ? error : new Error(String(error)));
  }
}

function reportProtocolError(error: unknown): void {
  // A malformed frame is the engine's bug, not the user's; it is logged, never thrown into a view.
  console.error('[rlm-studio api] dropped a malformed frame:', error);
}

/**
 * What the Electron preload exposes on `window[exposedApiKey]`: plain frames, not the client. Errors
 * thrown across contextBridge keep only their message, so the page builds the client itself (over
 * `createBridgeTransport`) and every error is rebuilt from a frame on the page's side.
 */
export interface ExposedBridge {
  /** Sends one request frame to the main process; resolves with its (serialized) response frame. */
  request(frame: RequestFrame): Promise<unknown>;
  /** Calls the listener with each event payload the main process pushes; returns an unsubscribe. */
  onEvent(listener: (event: unknown) => void): () => void;
}
export const exposedApiKey = 'rlmStudio';

function ipcInvokeFailure(frame: RequestFrame, cause: unknown): ResponseFrame {
  const detail = cause instanceof Error ? cause.message : String(cause);
  return {
    kind: 'response',
    id: frame.id,
    ok: false,
    error: {
      name: 'IpcInvokeError',
      message: `The desktop shell did not answer '${frame.command}' (${detail}); restart RLM Studio, and report it if it recurs`,
    },
  };
}

/** A Transport over the preload's exposed bridge. Pure: the bridge is all it touches. */
export function createBridgeTransport(bridge: ExposedBridge): Transport {
  let frameSink: ((frame: unknown) => void) | null = null;
  let unsubscribe: (() => void) | null = null;

  return {
    send(frame) {
      let answer: Promise<unknown>;
      try {
        answer = Promise.resolve(bridge.request(frame));
      } catch (error) {
        answer = Promise.reject(error instanceof Error ? error : new Error(String(error)));
      }
      answer.then(
        (response) => frameSink?.(response),
        (error: unknown) => {
          // Answer the pending call instead of leaving it hanging: the client rejects it by id.
          frameSink?.(ipcInvokeFailure(frame, error));
        },
      );
    },
    onFrame(sink) {
      frameSink = sink;
      unsubscribe ??= bridge.onEvent((event) => frameSink?.({ kind: 'event', event }));
    },
    onClose() {
      // IPC lives as long as the page: there is no lasting disconnect to report.
    },
    close() {
      unsubscribe?.();
      unsubscribe = null;
      frameSink = null;
    },
  };
}
