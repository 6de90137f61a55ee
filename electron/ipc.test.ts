import { describe, expect, it } from 'vitest';
import { createHost, type CommandHandlers, type Host } from '../host/index.ts';
import { commandNames, ipcChannels, type ApiEvent } from '../app/api/index.ts';
import {
  bindHostToIpc,
  type IpcInvokeEventLike,
  type IpcMainLike,
  type WebContentsLike,
} from './ipc.ts';

type Listener = (event: IpcInvokeEventLike, frame: unknown) => unknown;

function fakeIpcMain() {
  const handlers = new Map<string, Listener>();
  const ipcMain: IpcMainLike = {
    handle(channel, listener) {
      if (handlers.has(channel)) throw new Error(`second handler for ${channel}`);
      handlers.set(channel, listener);
    },
    removeHandler(channel) {
      handlers.delete(channel);
    },
  };
  const invoke = (url: string | null, frame: unknown): Promise<unknown> => {
    const handler = handlers.get(ipcChannels.request);
    if (!handler) return Promise.reject(new Error('no handler'));
    return Promise.resolve(handler({ senderFrame: url === null ? null : { url } }, frame));
  };
  return { ipcMain, handlers, invoke };
}

function fakeContents() {
  const sent: { channel: string; args: unknown[] }[] = [];
  let destroyed = false;
  const contents: WebContentsLike = {
    send(channel, ...args) {
      sent.push({ channel, args });
    },
    isDestroyed: () => destroyed,
  };
  return { contents, sent, destroy: () => (destroyed = true) };
}

function testHost(): Host {
  const unused = Object.fromEntries(
    commandNames.map((name) => [
      name,
      () => {
        throw new Error(`${name} is not used by these tests`);
      },
    ]),
  ) as unknown as CommandHandlers;
  return createHost({
    ...unused,
    'app.ping': ({ message }) => ({ message, receivedAt: 42 }),
    'settings.get': () => ({ theme: 'system', embeddingModel: null }),
    'settings.update': () => ({ theme: 'dark', embeddingModel: null }),
    'dialog.openPaths': () => ({ paths: [], canceled: true }),
  });
}

const ping = { kind: 'request', id: 7, command: 'app.ping', payload: { message: 'hi' } };
const toggle: ApiEvent = { kind: 'menu.toggleTheme', at: 1 };

describe('bindHostToIpc', () => {
  it('forwards a request from the app origin to the host and answers it', async () => {
    const { ipcMain, invoke } = fakeIpcMain();
    bindHostToIpc(ipcMain, testHost());
    await expect(invoke('app://rlm-studio/index.html', ping)).resolves.toEqual({
      kind: 'response',
      id: 7,
      ok: true,
      result: { message: 'hi', receivedAt: 42 },
    });
  });

  it.each([
    ['a web page', 'https://evil.example/app://rlm-studio/'],
    ['a file page', 'file:///tmp/index.html'],
    ['another app host', 'app://other/index.html'],
    ['a look-alike host', 'app://rlm-studio.evil.example/'],
  ])('refuses %s by name, keeping the request id', async (_what, url) => {
    const { ipcMain, invoke } = fakeIpcMain();
    bindHostToIpc(ipcMain, testHost());
    const response = await invoke(url, ping);
    expect(response).toMatchObject({ kind: 'response', id: 7, ok: false });
    expect(response).toHaveProperty('error.name', 'UntrustedSenderError');
    expect(response).toHaveProperty('error.message', expect.stringContaining(url));
  });

  it('refuses a sender whose frame is gone, and a frame without an id', async () => {
    const { ipcMain, invoke } = fakeIpcMain();
    bindHostToIpc(ipcMain, testHost());
    const response = await invoke(null, 'not a frame');
    expect(response).toMatchObject({ id: -1, ok: false, error: { name: 'UntrustedSenderError' } });
    expect(response).toHaveProperty('error.message', expect.stringContaining('navigated away'));
  });

  it('sends every host event to each attached, living webContents', () => {
    const { ipcMain } = fakeIpcMain();
    const host = testHost();
    const binding = bindHostToIpc(ipcMain, host);
    const first = fakeContents();
    const second = fakeContents();
    const detached = fakeContents();
    binding.attach(first.contents);
    binding.attach(second.contents);
    binding.attach(detached.contents)();
    second.destroy();

    host.emit(toggle);

    expect(first.sent).toEqual([{ channel: ipcChannels.event, args: [toggle] }]);
    expect(second.sent).toEqual([]);
    expect(detached.sent).toEqual([]);
  });

  it('dispose removes the handler and the event subscription', () => {
    const { ipcMain, handlers } = fakeIpcMain();
    const host = testHost();
    const binding = bindHostToIpc(ipcMain, host);
    const window = fakeContents();
    binding.attach(window.contents);

    binding.dispose();
    host.emit(toggle);

    expect(handlers.has(ipcChannels.request)).toBe(false);
    expect(window.sent).toEqual([]);
    // A fresh binding can take the channel again (ipcMain allows one handler per channel).
    expect(() => bindHostToIpc(ipcMain, host)).not.toThrow();
  });
});
