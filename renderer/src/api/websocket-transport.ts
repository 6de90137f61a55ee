// A Transport over the browser's WebSocket, for serve mode. Frames sent before the socket opens wait
// in a queue; the close sinks run exactly once, with the first reason known (an error, a close, or us).
import { ApiDisconnectedError, type RequestFrame, type Transport } from '../../../app/api/index.ts';

export interface WebSocketTransport extends Transport {
  /** Runs once when the socket opens (at once if it is already open). */
  onOpen(listener: () => void): void;
}

export type OpenSocket = (url: string) => WebSocket;

type SocketState = 'connecting' | 'open' | 'closed';

const closeCodeReasons: Record<number, string> = {
  1000: 'the engine closed the connection',
  1001: 'the engine is shutting down',
  1006: 'the connection dropped; is `rlm-studio serve` still running?',
  1008: 'the engine refused this page; open the address `rlm-studio serve` printed',
  1011: 'the engine hit an internal error',
};

function describeClose(event: CloseEvent): string {
  if (event.reason !== '') return event.reason;
  return closeCodeReasons[event.code] ?? `the connection closed with code ${event.code}`;
}

/** A message's JSON, or undefined (logged) for a binary or malformed one: JSON has no undefined. */
function frameOf(event: MessageEvent): unknown {
  if (typeof event.data !== 'string') {
    console.error('[rlm-studio api] dropped a binary frame; the engine sends JSON text only');
    return undefined;
  }
  try {
    return JSON.parse(event.data) as unknown;
  } catch (error) {
    console.error('[rlm-studio api] dropped a frame that is not JSON:', error);
    return undefined;
  }
}

export function createWebSocketTransport(
  url: string,
  openSocket: OpenSocket = (address) => new WebSocket(address),
): WebSocketTransport {
  const socket = openSocket(url);
  const queue: string[] = [];
  const openListeners: (() => void)[] = [];
  const closeSinks: ((reason: string) => void)[] = [];
  let frameSink: ((frame: unknown) => void) | null = null;
  let state: SocketState = 'connecting';
  let closedReason = '';

  const finish = (reason: string) => {
    if (state === 'closed') return;
    state = 'closed';
    closedReason = reason;
    queue.length = 0;
    for (const sink of closeSinks) sink(reason);
  };

  socket.addEventListener('open', () => {
    if (state !== 'connecting') return;
    state = 'open';
    for (const text of queue.splice(0)) socket.send(text);
    for (const listener of openListeners) listener();
  });
  socket.addEventListener('message', (event: MessageEvent) => {
    const frame = frameOf(event);
    if (frame !== undefined) frameSink?.(frame);
  });
  // Browsers give an error event no detail; the close event that follows is ignored by `finish`.
  socket.addEventListener('error', () => {
    finish(
      state === 'connecting' ? `could not reach the engine at ${url}` : 'the connection failed',
    );
  });
  socket.addEventListener('close', (event: CloseEvent) => {
    finish(describeClose(event));
  });

  return {
    send(frame: RequestFrame) {
      if (state === 'closed') throw new ApiDisconnectedError(closedReason);
      const text = JSON.stringify(frame);
      if (state === 'connecting') queue.push(text);
      else socket.send(text);
    },
    onFrame(sink) {
      frameSink = sink;
    },
    onClose(sink) {
      if (state === 'closed') sink(closedReason);
      else closeSinks.push(sink);
    },
    onOpen(listener) {
      if (state === 'open') listener();
      else if (state === 'connecting') openListeners.push(listener);
    },
    close() {
      finish('this window closed the connection');
      socket.close(1000, 'client closed');
    },
  };
}
