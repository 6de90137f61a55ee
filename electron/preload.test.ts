import { afterEach, describe, expect, it, vi } from 'vitest';
import { exposedApiKey, ipcChannels } from '../app/api/index.ts';

const { exposeInMainWorld, on } = vi.hoisted(() => ({ exposeInMainWorld: vi.fn(), on: vi.fn() }));

vi.mock('electron', () => ({
  contextBridge: { exposeInMainWorld },
  ipcRenderer: { invoke: vi.fn(), on, removeListener: vi.fn() },
}));

afterEach(() => {
  vi.resetModules();
});

describe('the preload', () => {
  it('exposes only call/on/onAny under the api key, and listens for events', async () => {
    await import('./preload.ts');

    expect(exposeInMainWorld).toHaveBeenCalledTimes(1);
    const [key, api] = exposeInMainWorld.mock.calls[0] as [string, object];
    expect(key).toBe(exposedApiKey);
    expect(Object.keys(api).sort()).toEqual(['call', 'on', 'onAny']);
    expect(Object.values(api).every((value) => typeof value === 'function')).toBe(true);
    expect(on).toHaveBeenCalledWith(ipcChannels.event, expect.any(Function));
  });
});
