// The WebSocket transport against a fake socket: queueing before open, JSON frames, one close, and a
// round trip through the real api client.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiDisconnectedError, createApiClient } from '../../../app/api/index.ts';
import { createWebSocketTransport } from './websocket-transport.ts';

class FakeSocket extends EventTarget {
  readonly sent: string[] = [];
  closedWith: { code?: number; reason?: string } | null = null;

  send(text: string) {
    this.sent.push(text);
  }
  close(code?: number, reason?: string) {
    this.closedWith = { code, reason };
  }
  open() {
    this.dispatchEvent(new Event('open'));
  }
  receive(data: unknown) {
    this.dispatchEvent(new MessageEvent('message', { data }));
  }
  fail() {
    this.dispatchEvent(new Event('error'));
  }
  drop(code: number, reason = '') {
    this.dispatchEvent(Object.assign(new Event('close'), { code, reason }));
  }
}

function transportOverFake() {
  const socket = new FakeSocket();
  let openedUrl = '';
  const transport = createWebSocketTransport('ws://127.0.0.1:1/api', (url) => {
    openedUrl = url;
    return socket as unknown as WebSocket;
  });
  return { socket, transport, openedUrl };
}

const ping = { kind: 'request', id: 1, command: 'app.ping', payload: { message: 'hi' } } as const;

afterEach(() => {
  vi.restoreAllMocks();
});

describe('createWebSocketTransport', () => {
  it('opens the given url and queues frames until the socket opens', () => {
    const { socket, transport, openedUrl } = transportOverFake();
    const opened = vi.fn();
    transport.onOpen(opened);
    transport.send(ping);
    transport.send({ ...ping, id: 2 });
    expect(openedUrl).toBe('ws://127.0.0.1:1/api');
    expect(socket.sent).toEqual([]);

    socket.open();
    transport.send({ ...ping, id: 3 });
    expect(socket.sent.map((text) => (JSON.parse(text) as { id: number }).id)).toEqual([1, 2, 3]);
    expect(opened).toHaveBeenCalledOnce();
  });

  it('parses incoming text and drops frames that are not JSON text', () => {
    const { socket, transport } = transportOverFake();
    const sink = vi.fn();
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    transport.onFrame(sink);
    socket.open();

    socket.receive('{"kind":"event"}');
    socket.receive('not json');
    socket.receive(new ArrayBuffer(4));
    expect(sink.mock.calls).toEqual([[{ kind: 'event' }]]);
    expect(logged).toHaveBeenCalledTimes(2);
  });

  it('reports the close once, with the first reason', () => {
    const { socket, transport } = transportOverFake();
    const closed = vi.fn();
    transport.onClose(closed);
    socket.open();
    socket.drop(1001);
    socket.fail();
    socket.drop(1006);
    expect(closed.mock.calls).toEqual([['the engine is shutting down']]);

    const late = vi.fn();
    transport.onClose(late);
    expect(late).toHaveBeenCalledWith('the engine is shutting down');
  });

  it('says the engine was unreachable when the socket fails before opening', () => {
    const { socket, transport } = transportOverFake();
    const closed = vi.fn();
    transport.onClose(closed);
    transport.send(ping);
    socket.fail();
    socket.drop(1006);
    expect(closed.mock.calls).toEqual([['could not reach the engine at ws://127.0.0.1:1/api']]);
    expect(() => {
      transport.send(ping);
    }).toThrow(ApiDisconnectedError);
    expect(socket.sent).toEqual([]);
  });

  it('prefers the close reason the engine gave', () => {
    const { socket, transport } = transportOverFake();
    const closed = vi.fn();
    transport.onClose(closed);
    socket.drop(4001, 'workspace locked by another engine');
    expect(closed).toHaveBeenCalledWith('workspace locked by another engine');
  });

  it('carries a command round trip for the api client', async () => {
    const { socket, transport } = transportOverFake();
    const client = createApiClient(transport);
    const answer = client.call('app.ping', { message: 'hello' });
    socket.open();
    const request = JSON.parse(socket.sent[0] ?? '') as { id: number; command: string };
    expect(request.command).toBe('app.ping');
    socket.receive(
      JSON.stringify({
        kind: 'response',
        id: request.id,
        ok: true,
        result: { message: 'hello', receivedAt: 5 },
      }),
    );
    await expect(answer).resolves.toEqual({ message: 'hello', receivedAt: 5 });

    client.dispose();
    expect(socket.closedWith).toEqual({ code: 1000, reason: 'client closed' });
  });
});
