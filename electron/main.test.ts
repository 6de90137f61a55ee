// Boots the real bundles (dist-style main.cjs and preload.cjs, built here by esbuild) against a fake
// `electron` module, and drives a renderer's calls through both: the closest this machine gets to
// running the desktop app, since Electron's binary cannot be installed here.
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { MenuItemConstructorOptions } from 'electron';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { VAULT_KEYS_FILE } from '../app/models/index.ts';
import { contentSecurityPolicy } from '../host/serve/csp.ts';
import {
  createApiClient,
  createBridgeTransport,
  type ApiClient,
  type ApiEvent,
  type RunEvent,
  type ExposedBridge,
} from '../app/api/index.ts';
import { buildElectron } from '../scripts/build-electron.ts';
import { writeScriptedModel } from '../training/engine/decoding/scripted-model.test-support.ts';
import { SAFE_VAULT_FILE } from './safe-storage-vault.ts';

type Listener = (...args: unknown[]) => unknown;
type ProtocolHandler = (request: { url: string }) => Promise<Response>;

/** What contextBridge does to an error crossing it: only the message survives. */
function stripped(error: unknown): Error {
  return new Error(error instanceof Error ? error.message : String(error));
}

/**
 * The exposed object as the page sees it: each function proxied, values cloned, and errors (thrown
 * or rejected) stripped to their message, as Electron's contextBridge does.
 */
function acrossContextBridge(api: unknown): unknown {
  if (typeof api !== 'object' || api === null) return structuredClone(api);
  return Object.fromEntries(
    Object.entries(api as Record<string, unknown>).map(([key, value]) => {
      if (typeof value !== 'function') return [key, structuredClone(value)];
      const proxy = (...args: unknown[]): unknown => {
        let result: unknown;
        try {
          const cloned = args.map((arg) =>
            typeof arg === 'function' ? arg : structuredClone(arg),
          );
          result = Reflect.apply(value as (...inner: unknown[]) => unknown, api, cloned);
        } catch (error) {
          throw stripped(error);
        }
        if (result instanceof Promise) {
          return result.then(
            (resolved: unknown) => structuredClone(resolved),
            (error: unknown) => Promise.reject(stripped(error)),
          );
        }
        return typeof result === 'function' ? result : structuredClone(result);
      };
      return [key, proxy];
    }),
  );
}

function createFakeElectron(dir: string) {
  const appListeners = new Map<string, Listener>();
  const ipcHandlers = new Map<string, Listener>();
  const rendererListeners = new Map<string, Set<Listener>>();
  const protocolHandlers = new Map<string, ProtocolHandler>();
  const windows: FakeWindow[] = [];
  const exposed = new Map<string, unknown>();
  let menu: MenuItemConstructorOptions[] = [];
  const privileged: unknown[] = [];
  const showOpenDialog = vi.fn((_options: unknown) =>
    Promise.resolve({ canceled: false, filePaths: [join(dir, 'paper.pdf')] }),
  );

  const webContents = {
    send: (channel: string, ...args: unknown[]) => {
      for (const listener of rendererListeners.get(channel) ?? []) {
        listener({}, ...args.map((arg) => structuredClone(arg)));
      }
    },
    isDestroyed: () => false,
  };
  class FakeWindow {
    static getAllWindows = () => windows;
    static getFocusedWindow = () => null;
    readonly webContents = webContents;
    readonly loaded: string[] = [];
    readonly options: { webPreferences: Record<string, unknown> };
    constructor(options: { webPreferences: Record<string, unknown> }) {
      this.options = options;
      windows.push(this);
    }
    once() {
      return this;
    }
    on() {
      return this;
    }
    loadURL(url: string) {
      this.loaded.push(url);
      return Promise.resolve();
    }
  }

  const electron = {
    app: {
      isPackaged: false,
      requestSingleInstanceLock: () => true,
      on: (name: string, listener: Listener) => appListeners.set(name, listener),
      whenReady: () => Promise.resolve(),
      setAboutPanelOptions: vi.fn(),
      showAboutPanel: vi.fn(),
      quit: vi.fn(),
      exit: vi.fn(),
      relaunch: vi.fn(),
    },
    BrowserWindow: FakeWindow,
    dialog: { showOpenDialog, showErrorBox: vi.fn() },
    ipcMain: {
      handle: (channel: string, listener: Listener) => ipcHandlers.set(channel, listener),
      removeHandler: (channel: string) => ipcHandlers.delete(channel),
    },
    Menu: {
      buildFromTemplate: (template: MenuItemConstructorOptions[]) => template,
      setApplicationMenu: (template: MenuItemConstructorOptions[]) => (menu = template),
    },
    protocol: {
      registerSchemesAsPrivileged: (schemes: unknown[]) => privileged.push(...schemes),
      handle: (scheme: string, handler: ProtocolHandler) => protocolHandlers.set(scheme, handler),
    },
    session: {
      defaultSession: { setPermissionRequestHandler: vi.fn(), setPermissionCheckHandler: vi.fn() },
    },
    shell: { openExternal: vi.fn(() => Promise.resolve()) },
    // The OS keychain: reversible, and visibly not the plain text.
    safeStorage: {
      isEncryptionAvailable: () => true,
      encryptString: (plain: string) => Buffer.from(plain, 'utf8').reverse(),
      decryptString: (encrypted: Buffer) => Buffer.from(encrypted).reverse().toString('utf8'),
    },
    contextBridge: {
      exposeInMainWorld: (key: string, api: unknown) => exposed.set(key, acrossContextBridge(api)),
    },
    ipcRenderer: {
      // What IPC does: structured-clone both ways, with the sending frame's URL on the event.
      invoke: async (channel: string, frame: unknown) => {
        const handler = ipcHandlers.get(channel);
        if (!handler) throw new Error(`No handler registered for '${channel}'`);
        const event = { senderFrame: { url: 'app://rlm-studio/index.html' } };
        return structuredClone(await handler(event, structuredClone(frame)));
      },
      on: (channel: string, listener: Listener) => {
        const set = rendererListeners.get(channel) ?? new Set();
        set.add(listener);
        rendererListeners.set(channel, set);
      },
      removeListener: (channel: string, listener: Listener) =>
        rendererListeners.get(channel)?.delete(listener),
    },
  };
  const state = { appListeners, ipcHandlers, protocolHandlers, windows, exposed, privileged };
  return { electron, state, showOpenDialog, menu: () => menu };
}

const projectRoot = fileURLToPath(new URL('..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'rlm-shell-'));
const outDir = join(dir, 'dist', 'electron');
const workspaceDir = join(dir, 'workspace');
const fake = createFakeElectron(dir);
const savedArgv = process.argv;
let api: ApiClient;

beforeAll(async () => {
  await buildElectron({ root: projectRoot, outDir });
  // The bundle reads the version from ../../package.json beside it, like a packaged app.asar.
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'probe', version: '9.9.9' }));
  mkdirSync(join(dir, 'dist', 'renderer'), { recursive: true });
  writeFileSync(join(dir, 'dist', 'renderer', 'index.html'), '<!doctype html><title>shell</title>');
  mkdirSync(join(dir, 'node_modules', 'electron'), { recursive: true });
  // What a packaged app carries beside the bundle and the children load: Pyodide (the REPL) and
  // the local-model process's native packages.
  for (const name of ['pyodide', '@huggingface', 'webgpu']) {
    symlinkSync(join(projectRoot, 'node_modules', name), join(dir, 'node_modules', name), 'dir');
  }
  // And the prompt templates a run reads (not the sample workspace's files).
  mkdirSync(join(dir, 'assets'));
  symlinkSync(join(projectRoot, 'assets', 'prompts'), join(dir, 'assets', 'prompts'), 'dir');
  writeFileSync(
    join(dir, 'node_modules', 'electron', 'index.js'),
    'module.exports = globalThis.__rlmStudioFakeElectron;',
  );
  Reflect.set(globalThis, '__rlmStudioFakeElectron', fake.electron);
  process.argv = [process.execPath, join(outDir, 'main.cjs'), '--workspace', workspaceDir];

  const require = createRequire(join(outDir, 'main.cjs'));
  require('./main.cjs');
  await new Promise((resolve) => setImmediate(resolve));
  require('./preload.cjs');
  // What the page does (renderer/src/api/connection.ts): build the client over the exposed frames.
  api = createApiClient(
    createBridgeTransport(fake.state.exposed.get('rlmStudio') as ExposedBridge),
  );
}, 60_000);

afterAll(() => {
  process.argv = savedArgv;
  Reflect.deleteProperty(globalThis, '__rlmStudioFakeElectron');
  rmSync(dir, { recursive: true, force: true });
});

describe('the bundled desktop shell', () => {
  it('registers the app scheme and opens one secure window on app://rlm-studio', () => {
    expect(fake.state.privileged).toMatchObject([
      { scheme: 'app', privileges: { standard: true, secure: true } },
    ]);
    expect(fake.state.windows).toHaveLength(1);
    const [window] = fake.state.windows;
    expect(window?.options.webPreferences).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      preload: join(outDir, 'preload.cjs'),
    });
    expect(window?.loaded).toEqual(['app://rlm-studio/index.html']);
  });

  it('serves the renderer beside the bundle with the CSP', async () => {
    const handler = fake.state.protocolHandlers.get('app');
    const response = await handler?.({ url: 'app://rlm-studio/index.html' });
    expect(response?.status).toBe(200);
    expect(await response?.text()).toContain('<title>shell</title>');
    expect(response?.headers.get('content-security-policy')).toBe(contentSecurityPolicy());
  });

  it('exposes the api to the page and answers app.info from the real engine', async () => {
    expect([...fake.state.exposed.keys()]).toEqual(['rlmStudio']);
    await expect(api.call('app.info', {})).resolves.toMatchObject({
      name: 'RLM Studio',
      version: '9.9.9',
      workspace: workspaceDir,
      shell: 'electron',
      capabilities: { nativeDialogs: true },
    });
  });

  it('keeps a failing command’s error name and fields across the bridge', async () => {
    await expect(
      // @ts-expect-error: an invalid payload on purpose; the engine must refuse it.
      api.call('dialog.openPaths', { title: 42 }),
    ).rejects.toMatchObject({
      name: 'ApiValidationError',
      fields: ['title'],
      message: expect.stringContaining("field 'title'") as unknown,
    });
    expect(fake.showOpenDialog).not.toHaveBeenCalled();
  });

  it('keeps endpoint keys in the OS keychain, not in the workspace file vault', async () => {
    const key = 'sk-desktop-0123456789abcdef';
    const { endpoint } = await api.call('models.saveEndpoint', {
      endpoint: {
        name: 'Desktop vLLM',
        kind: 'vllm',
        baseUrl: 'http://127.0.0.1:8000/v1',
        model: 'Qwen/Qwen3-8B',
      },
      apiKey: key,
    });
    expect(endpoint.hasKey).toBe(true);
    const stored = readFileSync(join(workspaceDir, SAFE_VAULT_FILE), 'utf8');
    expect(stored).not.toContain(key);
    expect(stored).toContain(Buffer.from(key, 'utf8').reverse().toString('base64'));
    expect(existsSync(join(workspaceDir, VAULT_KEYS_FILE))).toBe(false);
  });

  it('runs a local: model, decoded in a process of its own', async () => {
    const { model } = writeScriptedModel(dir, ['FINAL("from the desktop")']);
    const paper = fileURLToPath(
      new URL('../../shared/data/papers/1706.03762v5.pdf', import.meta.url),
    );
    const imported = await api.call('papers.importPaths', {
      set: 'local',
      importId: 'local-1',
      paths: [paper],
    });
    expect(imported.results.map((result) => result.outcome)).toEqual(['added']);
    const savedBackend = process.env.RLM_STUDIO_BACKEND;
    process.env.RLM_STUDIO_BACKEND = 'wasm';
    try {
      const { runId } = await api.call('runs.start', {
        set: 'local',
        question: 'Who answers?',
        model: `local:${model}`,
        budgets: { maxTurns: 1 },
      });
      let events: RunEvent[] = [];
      const started = Date.now();
      while (!events.some((event) => event.kind === 'run.finished')) {
        if (Date.now() - started > 30_000) throw new Error('the run did not finish');
        await new Promise((resolve) => setTimeout(resolve, 50));
        events = (await api.call('runs.events', { runId })).events;
      }
      expect(events.at(-1)).toMatchObject({
        kind: 'run.finished',
        status: 'done',
        answer: 'from the desktop',
      });
    } finally {
      if (savedBackend === undefined) delete process.env.RLM_STUDIO_BACKEND;
      else process.env.RLM_STUDIO_BACKEND = savedBackend;
    }
  }, 60_000);

  it('answers the native dialog through Electron’s dialog', async () => {
    await expect(
      api.call('dialog.openPaths', {
        title: 'Import PDFs',
        filters: [{ name: 'PDF', extensions: ['pdf'] }],
      }),
    ).resolves.toEqual({ paths: [join(dir, 'paper.pdf')], canceled: false });
    expect(fake.showOpenDialog).toHaveBeenCalledWith({
      title: 'Import PDFs',
      properties: ['openFile', 'multiSelections'],
      filters: [{ name: 'PDF', extensions: ['pdf'] }],
    });
  });

  it('streams engine and menu events to the page', async () => {
    const events: ApiEvent[] = [];
    const unsubscribe = api.onAny((event) => events.push(event));
    await api.call('settings.update', { theme: 'dark' });
    const view = fake.menu().find((entry) => entry.label === 'View');
    const run = Array.isArray(view?.submenu)
      ? view.submenu.find((e) => e.label === 'Run')
      : undefined;
    (run?.click as (() => void) | undefined)?.();
    unsubscribe();

    expect(events.map((event) => event.kind)).toEqual(['settings.changed', 'menu.navigate']);
    expect(events[1]).toMatchObject({ kind: 'menu.navigate', view: 'run' });
  });

  it('guards every new webContents', () => {
    const setWindowOpenHandler = vi.fn();
    const on = vi.fn();
    fake.state.appListeners.get('web-contents-created')?.({}, { setWindowOpenHandler, on });
    expect(setWindowOpenHandler).toHaveBeenCalledOnce();
    expect(on).toHaveBeenCalledWith('will-navigate', expect.any(Function));
  });

  it('unbinds the engine when the app quits', async () => {
    fake.state.appListeners.get('will-quit')?.();
    expect(fake.state.ipcHandlers.size).toBe(0);
    await expect(api.call('app.ping', { message: 'late' })).rejects.toMatchObject({
      name: 'IpcInvokeError',
    });
  });
});
