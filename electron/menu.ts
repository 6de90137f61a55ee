// The application menu as a pure template: the shell's actions come in as callbacks, and the view
// commands become api events (menu.navigate, menu.toggleTheme, menu.showShortcuts) for the renderer.
// The renderer owns those keys (Mod+1..5, Mod+Shift+L, '?'; they work in serve mode too), so their
// menu accelerators are shown but not registered on Linux and Windows: one keystroke, one action.
// macOS always registers menu key equivalents, and its menu takes Cmd+key before the page does.
import type { MenuItemConstructorOptions } from 'electron';
import type { ApiEvent, ViewId } from '../app/api/index.ts';

export interface MenuActions {
  /** Sends an event to every window (the host's emit). */
  emit(event: ApiEvent): void;
  now(): number;
  importPdfs(): void;
  openWorkspace(): void;
  showAbout(): void;
}

export interface MenuContext {
  appName: string;
  platform: NodeJS.Platform;
  /** Adds reload and developer tools. */
  isDev: boolean;
}

/** The six views in menu order, with their accelerators (CmdOrCtrl+1..6). */
export const viewMenuEntries: readonly { view: ViewId; label: string; accelerator: string }[] = [
  { view: 'papers', label: 'Papers', accelerator: 'CmdOrCtrl+1' },
  { view: 'datasets', label: 'Datasets', accelerator: 'CmdOrCtrl+2' },
  { view: 'run', label: 'Run', accelerator: 'CmdOrCtrl+3' },
  { view: 'runs', label: 'Runs', accelerator: 'CmdOrCtrl+4' },
  { view: 'eval', label: 'Eval', accelerator: 'CmdOrCtrl+5' },
  { view: 'train', label: 'Train', accelerator: 'CmdOrCtrl+6' },
];

/** The menu bar. Longer than ~60 lines as a table: one entry per menu and item, as Electron takes it. */
export function buildMenuTemplate(
  context: MenuContext,
  actions: MenuActions,
): MenuItemConstructorOptions[] {
  const mac = context.platform === 'darwin';
  const separator: MenuItemConstructorOptions = { type: 'separator' };
  const about: MenuItemConstructorOptions = {
    label: `About ${context.appName}`,
    click: () => {
      actions.showAbout();
    },
  };

  const appMenu: MenuItemConstructorOptions = {
    label: context.appName,
    submenu: [
      about,
      separator,
      { role: 'services' },
      separator,
      { role: 'hide' },
      { role: 'hideOthers' },
      { role: 'unhide' },
      separator,
      { role: 'quit' },
    ],
  };
  const fileMenu: MenuItemConstructorOptions = {
    label: 'File',
    submenu: [
      {
        label: 'Import PDFs…',
        accelerator: 'CmdOrCtrl+O',
        click: () => {
          actions.importPdfs();
        },
      },
      {
        label: 'Open Workspace…',
        accelerator: 'CmdOrCtrl+Shift+O',
        click: () => {
          actions.openWorkspace();
        },
      },
      separator,
      mac ? { role: 'close' } : { role: 'quit' },
    ],
  };
  const editMenu: MenuItemConstructorOptions = { role: 'editMenu' };
  const viewMenu: MenuItemConstructorOptions = {
    label: 'View',
    submenu: [
      ...viewMenuEntries.map(({ view, label, accelerator }) => ({
        label,
        accelerator,
        registerAccelerator: false,
        click: () => {
          actions.emit({ kind: 'menu.navigate', view, at: actions.now() });
        },
      })),
      separator,
      {
        label: 'Toggle Theme',
        accelerator: 'CmdOrCtrl+Shift+L',
        registerAccelerator: false,
        click: () => {
          actions.emit({ kind: 'menu.toggleTheme', at: actions.now() });
        },
      },
      {
        label: 'Keyboard Shortcuts',
        // A bare '?' as a macOS key equivalent would swallow every '?' typed into a field.
        ...(mac ? {} : { accelerator: '?', registerAccelerator: false }),
        click: () => {
          actions.emit({ kind: 'menu.showShortcuts', at: actions.now() });
        },
      },
      separator,
      { role: 'resetZoom' },
      { role: 'zoomIn' },
      { role: 'zoomOut' },
      { role: 'togglefullscreen' },
      ...(context.isDev
        ? ([
            separator,
            { role: 'reload' },
            { role: 'forceReload' },
            { role: 'toggleDevTools' },
          ] as const)
        : []),
    ],
  };
  const windowMenu: MenuItemConstructorOptions = { role: 'windowMenu' };
  const helpMenu: MenuItemConstructorOptions = { role: 'help', submenu: mac ? [] : [about] };

  return mac
    ? [appMenu, fileMenu, editMenu, viewMenu, windowMenu, helpMenu]
    : [fileMenu, editMenu, viewMenu, helpMenu];
}
