import { describe, expect, it, vi } from 'vitest';
import {
  createApiClient,
  createBridgeTransport,
  exposedApiKey,
  ipcChannels,
  type ExposedBridge,
} from '../app/api/index.ts';
import { exposeBridge, type ContextBridgeLike, type IpcRendererLike } from './bridge.ts';

type RendererListener = (event: unknown, ...args: unknown[]) => void;

function fakeIpcRenderer(answer: (frame: unknown) => Promise<unknown>) {
  const listeners = new Map<string, Set<RendererListener>>();
  const invoked: { channel: string; args: unknown[] }[] = [];
  const ipcRenderer: IpcRendererLike = {
    invoke(channel, ...args) {
      invoked.push({ channel, args });
      return answer(args[0]);
    },
    on(channel, listener) {
      const set = listeners.get(channel) ?? new Set();
      set.add(listener);
      listeners.set(channel, set);
    },
    removeListener(channel, listener) {
      listeners.get(channel)?.delete(listener);
    },
  };
  const push = (channel: string, payload: unknown) => {
    for (const listener of listeners.get(channel) ?? []) listener({ sender: 'ipc' }, payload);
  };
  const count = (channel: string) => listeners.get(channel)?.size ?? 0;
  return { ipcRenderer, invoked, push, count };
}

function expose(ipcRenderer: IpcRendererLike) {
  const exposed = new Map<string, ExposedBridge>();
  const contextBridge: ContextBridgeLike = {
    exposeInMainWorld: (key, api) => exposed.set(key, api),
  };
  exposeBridge(contextBridge, ipcRenderer);
  return exposed;
}

const echo = (frame: unknown) => {
  const { id, payload } = frame as { id: number; payload: { message: string } };
  return Promise.resolve({
    kind: 'response',
    id,
    ok: true,
    result: { message: payload.message, receivedAt: 1 },
  });
};

describe('exposeBridge', () => {
  it('exposes one key holding exactly request and onEvent', () => {
    const exposed = expose(fakeIpcRenderer(echo).ipcRenderer);
    expect([...exposed.keys()]).toEqual([exposedApiKey]);
    const bridge = exposed.get(exposedApiKey);
    expect(Object.keys(bridge ?? {}).sort()).toEqual(['onEvent', 'request']);
  });

  it('invokes the request channel with the frame and resolves with the raw answer', async () => {
    const fake = fakeIpcRenderer(echo);
    const bridge = expose(fake.ipcRenderer).get(exposedApiKey);
    const frame = {
      kind: 'request',
      id: 4,
      command: 'app.ping',
      payload: { message: 'hi' },
    } as const;
    await expect(bridge?.request(frame)).resolves.toEqual({
      kind: 'response',
      id: 4,
      ok: true,
      result: { message: 'hi', receivedAt: 1 },
    });
    expect(fake.invoked).toEqual([{ channel: ipcChannels.request, args: [frame] }]);
  });

  it('lets a failed invoke reject as it is', async () => {
    const fake = fakeIpcRenderer(() => Promise.reject(new Error('No handler registered')));
    const bridge = expose(fake.ipcRenderer).get(exposedApiKey);
    await expect(
      bridge?.request({ kind: 'request', id: 1, command: 'settings.get', payload: {} }),
    ).rejects.toThrow('No handler registered');
  });

  it('passes event payloads to onEvent listeners until they unsubscribe', () => {
    const fake = fakeIpcRenderer(echo);
    const bridge = expose(fake.ipcRenderer).get(exposedApiKey);
    const listener = vi.fn();
    const unsubscribe = bridge?.onEvent(listener);
    expect(fake.count(ipcChannels.event)).toBe(1);
    fake.push(ipcChannels.event, { kind: 'menu.showShortcuts', at: 5 });
    unsubscribe?.();
    fake.push(ipcChannels.event, { kind: 'menu.showShortcuts', at: 6 });
    expect(listener.mock.calls).toEqual([[{ kind: 'menu.showShortcuts', at: 5 }]]);
    expect(fake.count(ipcChannels.event)).toBe(0);
  });

  it('carries a page-side client: calls, remote errors, failed invokes and events', async () => {
    let fail: Error | null = null;
    const fake = fakeIpcRenderer((frame) => {
      if (fail) return Promise.reject(fail);
      const { id, command } = frame as { id: number; command: string };
      if (command === 'settings.get') {
        return Promise.resolve({
          kind: 'response',
          id,
          ok: false,
          error: { name: 'WorkspaceCorruptError', message: 'restore it' },
        });
      }
      return echo(frame);
    });
    const bridge = expose(fake.ipcRenderer).get(exposedApiKey);
    if (!bridge) throw new Error('nothing exposed');
    const client = createApiClient(createBridgeTransport(bridge));
    const seen: unknown[] = [];
    client.onAny((event) => seen.push(event));

    await expect(client.call('app.ping', { message: 'x' })).resolves.toMatchObject({
      message: 'x',
    });
    await expect(client.call('settings.get', {})).rejects.toMatchObject({
      name: 'WorkspaceCorruptError',
      message: 'restore it',
    });
    fail = new Error('No handler registered');
    await expect(client.call('settings.get', {})).rejects.toMatchObject({
      name: 'IpcInvokeError',
      message: expect.stringContaining("'settings.get' (No handler registered)") as unknown,
    });
    fake.push(ipcChannels.event, { kind: 'menu.navigate', view: 'runs', at: 3 });
    client.dispose();
    fake.push(ipcChannels.event, { kind: 'menu.toggleTheme', at: 4 });
    expect(seen).toEqual([{ kind: 'menu.navigate', view: 'runs', at: 3 }]);
    expect(fake.count(ipcChannels.event)).toBe(0);
  });
});
