import { afterEach, describe, expect, it, vi } from 'vitest';
import { exposedApiKey, ipcChannels } from '../app/api/index.ts';

const { exposeInMainWorld, invoke, on } = vi.hoisted(() => ({
  exposeInMainWorld: vi.fn(),
  invoke: vi.fn(() => Promise.resolve({ kind: 'response', id: 1, ok: true, result: null })),
  on: vi.fn(),
}));

vi.mock('electron', () => ({
  contextBridge: { exposeInMainWorld },
  ipcRenderer: { invoke, on, removeListener: vi.fn() },
}));

afterEach(() => {
  vi.resetModules();
});

describe('the preload', () => {
  it('exposes only request/onEvent under the api key, wired to ipcRenderer', async () => {
    await import('./preload.ts');

    expect(exposeInMainWorld).toHaveBeenCalledTimes(1);
    const [key, api] = exposeInMainWorld.mock.calls[0] as [string, Record<string, unknown>];
    expect(key).toBe(exposedApiKey);
    expect(Object.keys(api).sort()).toEqual(['onEvent', 'request']);
    expect(Object.values(api).every((value) => typeof value === 'function')).toBe(true);
    // Nothing is listened to until the page subscribes.
    expect(on).not.toHaveBeenCalled();

    const bridge = api as {
      request: (frame: unknown) => Promise<unknown>;
      onEvent: (listener: (event: unknown) => void) => () => void;
    };
    const frame = { kind: 'request', id: 1, command: 'app.info', payload: {} };
    await bridge.request(frame);
    expect(invoke).toHaveBeenCalledWith(ipcChannels.request, frame);
    bridge.onEvent(() => undefined);
    expect(on).toHaveBeenCalledWith(ipcChannels.event, expect.any(Function));
  });
});
