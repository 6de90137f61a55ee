// The desktop shell's composition root: opens the workspace, builds the engine host, binds it to
// IPC, serves the renderer on app://, installs the menu and opens the window. Wiring only.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  app,
  BrowserWindow,
  dialog,
  ipcMain,
  Menu,
  protocol,
  safeStorage,
  session,
  shell,
} from 'electron';
import {
  appVersion,
  composeEngine,
  FileApiKeyVault,
  installSampleWorkspace,
  localModelProcesses,
  openWorkspace,
  type Host,
} from '../host/index.ts';
import { relaunchArgs, workspaceFromArgv } from './args.ts';
import { createDialogService } from './dialogs.ts';
import { bindHostToIpc, type IpcBinding } from './ipc.ts';
import { SafeStorageApiKeyVault } from './safe-storage-vault.ts';
import { buildMenuTemplate } from './menu.ts';
import { appEntryUrl, appScheme } from './origin.ts';
import { appSchemePrivileges, assertRendererBuilt, createAppProtocolHandler } from './protocol.ts';
import { denyAllPermissions, guardNavigation, secureWebPreferences } from './security.ts';

// In the bundle this is dist/electron/ (import.meta.url is shimmed to the .cjs file's URL).
const here = fileURLToPath(new URL('.', import.meta.url));
const rendererDir = join(here, '..', 'renderer');
const preloadPath = join(here, 'preload.cjs');
const iconPath = join(here, '..', '..', 'assets', 'icon.png');
const appName = 'RLM Studio';

const dialogs = createDialogService({
  showOpenDialog: (options) => {
    const parent = BrowserWindow.getFocusedWindow();
    return parent ? dialog.showOpenDialog(parent, options) : dialog.showOpenDialog(options);
  },
});

function createWindow(binding: IpcBinding): BrowserWindow {
  const window = new BrowserWindow({
    width: 1280,
    height: 820,
    minWidth: 900,
    minHeight: 600,
    show: false,
    title: appName,
    icon: iconPath,
    webPreferences: secureWebPreferences(preloadPath),
  });
  const detach = binding.attach(window.webContents);
  window.once('ready-to-show', () => {
    window.show();
  });
  window.on('closed', detach);
  window.loadURL(appEntryUrl).catch(fail);
  return window;
}

function installMenu(host: Host): void {
  const template = buildMenuTemplate(
    { appName, platform: process.platform, isDev: !app.isPackaged },
    {
      emit: (event) => {
        host.emit(event);
      },
      now: Date.now,
      importPdfs: () => {
        const picking = dialogs.openPaths({
          title: 'Import PDFs',
          directories: false,
          multiple: true,
          filters: [{ name: 'PDF documents', extensions: ['pdf'] }],
        });
        picking
          .then(({ paths }) => {
            if (paths.length === 0) return;
            // The api has no menu import event yet (see electron/CONTEXT.md): say so, never drop silently.
            host.emit({ kind: 'menu.navigate', view: 'papers', at: Date.now() });
            host.emit({
              kind: 'app.notice',
              at: Date.now(),
              level: 'info',
              message: `Picked ${paths.length} PDF(s), but File > Import PDFs is not wired to paper sets yet; import them from the Papers view`,
            });
          })
          .catch(report);
      },
      openWorkspace: () => {
        dialogs
          .openPaths({ title: 'Open Workspace', directories: true, multiple: false, filters: [] })
          .then(({ paths }) => {
            const dir = paths[0];
            if (dir === undefined) return;
            app.relaunch({ args: relaunchArgs(process.argv, dir) });
            app.quit();
          })
          .catch(report);
      },
      showAbout: () => {
        app.showAboutPanel();
      },
    },
  );
  Menu.setApplicationMenu(Menu.buildFromTemplate(template));
}

function start(): void {
  assertRendererBuilt(rendererDir);
  const workspace = openWorkspace(workspaceFromArgv(process.argv));
  // Keys live in the OS keychain; any saved in serve mode move over the first time they are read.
  const vault = new SafeStorageApiKeyVault(
    workspace.dir,
    safeStorage,
    new FileApiKeyVault(workspace.dir),
  );
  // `local:` models decode in a process of their own: a decode here would stall the main process.
  const localModels = localModelProcesses();
  const engine = composeEngine({
    workspace,
    shell: 'electron',
    dialogs,
    vault,
    providers: { local: localModels.factory },
  });
  const { host } = engine;
  installSampleWorkspace({
    workspace,
    papers: engine.papers,
    runStore: engine.runStore,
    emit: (event) => {
      host.emit(event);
    },
    assetsDir: join(here, '..', '..', 'assets'),
  }).catch(report);
  const binding = bindHostToIpc(ipcMain, host);
  protocol.handle(appScheme, createAppProtocolHandler(rendererDir));
  denyAllPermissions(session.defaultSession);
  app.setAboutPanelOptions({ applicationName: appName, applicationVersion: appVersion() });
  installMenu(host);
  createWindow(binding);

  app.on('activate', () => {
    if (BrowserWindow.getAllWindows().length === 0) createWindow(binding);
  });
  app.on('will-quit', () => {
    binding.dispose();
    void localModels.dispose();
    void engine.dispose().finally(() => {
      workspace.close();
    });
  });
}

/** Shows an error that the user must see (the message names what to do); the app keeps running. */
function report(error: unknown): void {
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  console.error('[rlm-studio]', error);
  dialog.showErrorBox(appName, message);
}

/** Shows an error the app cannot recover from, then exits. */
function fail(error: unknown): void {
  report(error);
  app.exit(1);
}

protocol.registerSchemesAsPrivileged([appSchemePrivileges]);

if (app.requestSingleInstanceLock()) {
  app.on('second-instance', () => {
    const [window] = BrowserWindow.getAllWindows();
    if (!window) return;
    if (window.isMinimized()) window.restore();
    window.focus();
  });
  app.on('web-contents-created', (_event, contents) => {
    guardNavigation(contents, (url) => shell.openExternal(url));
  });
  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });
  app.whenReady().then(start).catch(fail);
} else {
  // Another instance owns the workspace (SQLite, one writer): hand over to it and leave.
  app.quit();
}
