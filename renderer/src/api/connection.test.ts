// Choosing the engine connection: the preload bridge when present, else a WebSocket on this origin.
import { describe, expect, it, vi } from 'vitest';
import type { ExposedBridge, RequestFrame } from '../../../app/api/index.ts';
import { connectToEngine, engineSocketUrl } from './connection.ts';

class SilentSocket extends EventTarget {
  send = vi.fn();
  close = vi.fn();
}

describe('engineSocketUrl', () => {
  it('uses ws on http and wss on https, on the page origin', () => {
    expect(engineSocketUrl({ protocol: 'http:', host: '127.0.0.1:4177' })).toBe(
      'ws://127.0.0.1:4177/api',
    );
    expect(engineSocketUrl({ protocol: 'https:', host: 'studio.lab' })).toBe(
      'wss://studio.lab/api',
    );
  });
});

describe('connectToEngine', () => {
  it('builds the client over the preload bridge when the desktop shell exposes one', async () => {
    const eventListeners = new Set<(event: unknown) => void>();
    const request = vi.fn((frame: RequestFrame) =>
      Promise.resolve(
        frame.command === 'app.ping'
          ? {
              kind: 'response',
              id: frame.id,
              ok: true,
              result: { message: 'pong', receivedAt: 1 },
            }
          : {
              kind: 'response',
              id: frame.id,
              ok: false,
              error: { name: 'ApiValidationError', message: 'bad title', fields: ['title'] },
            },
      ),
    );
    const bridge: ExposedBridge = {
      request,
      onEvent: (listener) => {
        eventListeners.add(listener);
        return () => eventListeners.delete(listener);
      },
    };
    const openSocket = vi.fn();
    const client = connectToEngine(
      { location: { protocol: 'app:', host: 'studio' }, rlmStudio: bridge },
      openSocket,
    );

    expect(client.transport).toBe('ipc');
    expect(client.connection.current()).toEqual({ status: 'connected' });
    await expect(client.call('app.ping', { message: 'x' })).resolves.toEqual({
      message: 'pong',
      receivedAt: 1,
    });
    expect(request).toHaveBeenCalledWith({
      kind: 'request',
      id: 1,
      command: 'app.ping',
      payload: { message: 'x' },
    });
    // Errors are rebuilt here, on the page's side, so they keep their name and fields.
    await expect(client.call('dialog.openPaths', { title: 't' })).rejects.toMatchObject({
      name: 'ApiValidationError',
      fields: ['title'],
    });
    const themes = vi.fn();
    client.on('menu.toggleTheme', themes);
    for (const listener of eventListeners) listener({ kind: 'menu.toggleTheme', at: 2 });
    expect(themes).toHaveBeenCalledWith({ kind: 'menu.toggleTheme', at: 2 });
    expect(openSocket).not.toHaveBeenCalled();
  });

  it('ignores an exposed object that is not a bridge', () => {
    const socket = new SilentSocket();
    const openSocket = vi.fn(() => socket as unknown as WebSocket);
    const client = connectToEngine(
      {
        location: { protocol: 'http:', host: 'localhost:9' },
        rlmStudio: { call: () => undefined, on: () => undefined, onAny: () => undefined },
      },
      openSocket,
    );
    expect(client.transport).toBe('websocket');
  });

  it('opens a WebSocket to /api on this origin otherwise, and tracks its state', () => {
    const socket = new SilentSocket();
    const openSocket = vi.fn(() => socket as unknown as WebSocket);
    const client = connectToEngine(
      { location: { protocol: 'http:', host: 'localhost:9' } },
      openSocket,
    );
    const changed = vi.fn();
    client.connection.subscribe(changed);

    expect(client.transport).toBe('websocket');
    expect(openSocket).toHaveBeenCalledWith('ws://localhost:9/api');
    expect(client.connection.current()).toEqual({ status: 'connecting' });
    socket.dispatchEvent(new Event('open'));
    expect(client.connection.current()).toEqual({ status: 'connected' });
    socket.dispatchEvent(Object.assign(new Event('close'), { code: 1006, reason: '' }));
    expect(client.connection.current()).toMatchObject({ status: 'disconnected' });
    expect(changed).toHaveBeenCalledTimes(2);
  });
});
