import { describe, expect, it, vi } from 'vitest';
import {
  createApiClient,
  exposedApiKey,
  ipcChannels,
  RemoteCommandError,
  type ExposedApi,
} from '../app/api/index.ts';
import {
  createIpcTransport,
  exposeApi,
  type ContextBridgeLike,
  type IpcRendererLike,
} from './bridge.ts';

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

const echo = (frame: unknown) => {
  const { id, payload } = frame as { id: number; payload: { message: string } };
  return Promise.resolve({
    kind: 'response',
    id,
    ok: true,
    result: { message: payload.message, receivedAt: 1 },
  });
};

describe('createIpcTransport', () => {
  it('sends a request on the request channel and resolves the call with the answer', async () => {
    const fake = fakeIpcRenderer(echo);
    const client = createApiClient(createIpcTransport(fake.ipcRenderer));
    await expect(client.call('app.ping', { message: 'hello' })).resolves.toEqual({
      message: 'hello',
      receivedAt: 1,
    });
    expect(fake.invoked).toEqual([
      {
        channel: ipcChannels.request,
        args: [{ kind: 'request', id: 1, command: 'app.ping', payload: { message: 'hello' } }],
      },
    ]);
  });

  it('rebuilds an error response as the remote error', async () => {
    const fake = fakeIpcRenderer((frame) =>
      Promise.resolve({
        kind: 'response',
        id: (frame as { id: number }).id,
        ok: false,
        error: { name: 'WorkspaceCorruptError', message: 'restore it' },
      }),
    );
    const client = createApiClient(createIpcTransport(fake.ipcRenderer));
    const failure = client.call('settings.get', {});
    await expect(failure).rejects.toBeInstanceOf(RemoteCommandError);
    await expect(failure).rejects.toMatchObject({ name: 'WorkspaceCorruptError' });
  });

  it('turns a failed invoke into a rejected call naming the command', async () => {
    const fake = fakeIpcRenderer(() => Promise.reject(new Error('No handler registered')));
    const client = createApiClient(createIpcTransport(fake.ipcRenderer));
    await expect(client.call('settings.get', {})).rejects.toMatchObject({
      name: 'IpcInvokeError',
      message: expect.stringContaining("'settings.get' (No handler registered)") as unknown,
    });
  });

  it('delivers events pushed on the event channel, and stops after dispose', () => {
    const fake = fakeIpcRenderer(echo);
    const client = createApiClient(createIpcTransport(fake.ipcRenderer));
    const seen: unknown[] = [];
    client.onAny((event) => seen.push(event));

    fake.push(ipcChannels.event, { kind: 'menu.navigate', view: 'runs', at: 3 });
    client.dispose();
    fake.push(ipcChannels.event, { kind: 'menu.toggleTheme', at: 4 });

    expect(seen).toEqual([{ kind: 'menu.navigate', view: 'runs', at: 3 }]);
    expect(fake.count(ipcChannels.event)).toBe(0);
  });
});

describe('exposeApi', () => {
  it('exposes one key holding exactly call, on and onAny, bound to the client', async () => {
    const exposed = new Map<string, ExposedApi>();
    const bridge: ContextBridgeLike = {
      exposeInMainWorld: (key, api) => exposed.set(key, api),
    };
    const fake = fakeIpcRenderer(echo);
    exposeApi(bridge, createApiClient(createIpcTransport(fake.ipcRenderer)));

    expect([...exposed.keys()]).toEqual([exposedApiKey]);
    const api = exposed.get(exposedApiKey);
    expect(Object.keys(api ?? {}).sort()).toEqual(['call', 'on', 'onAny']);

    const listener = vi.fn();
    const unsubscribe = api?.on('menu.showShortcuts', listener);
    fake.push(ipcChannels.event, { kind: 'menu.showShortcuts', at: 5 });
    unsubscribe?.();
    fake.push(ipcChannels.event, { kind: 'menu.showShortcuts', at: 6 });
    expect(listener).toHaveBeenCalledTimes(1);
    await expect(api?.call('app.ping', { message: 'x' })).resolves.toMatchObject({ message: 'x' });
  });
});
