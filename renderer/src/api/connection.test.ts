// Choosing the engine connection: the preload bridge when present, else a WebSocket on this origin.
import { describe, expect, it, vi } from 'vitest';
import type { ExposedApi } from '../../../app/api/index.ts';
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
  it('uses the preload bridge when the desktop shell exposes one', async () => {
    const bridge: ExposedApi = {
      call: vi.fn(() => Promise.resolve({ message: 'pong', receivedAt: 1 })) as ExposedApi['call'],
      on: vi.fn(() => () => undefined),
      onAny: vi.fn(() => () => undefined),
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
    expect(openSocket).not.toHaveBeenCalled();
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
