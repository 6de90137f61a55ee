import type { MenuItemConstructorOptions } from 'electron';
import { describe, expect, it, vi } from 'vitest';
import { viewIds, type ApiEvent } from '../app/api/index.ts';
import { buildMenuTemplate, viewMenuEntries, type MenuActions, type MenuContext } from './menu.ts';

function actions() {
  const emitted: ApiEvent[] = [];
  const fake = {
    emit: (event: ApiEvent) => emitted.push(event),
    now: () => 1000,
    importPdfs: vi.fn(),
    openWorkspace: vi.fn(),
    showAbout: vi.fn(),
  } satisfies MenuActions;
  return { fake, emitted };
}

const linux: MenuContext = { appName: 'RLM Studio', platform: 'linux', isDev: false };

function submenu(
  template: MenuItemConstructorOptions[],
  label: string,
): MenuItemConstructorOptions[] {
  const menu = template.find((item) => item.label === label || item.role === label);
  if (!menu || !Array.isArray(menu.submenu)) throw new Error(`no menu '${label}'`);
  return menu.submenu;
}

function item(items: MenuItemConstructorOptions[], label: string): MenuItemConstructorOptions {
  const found = items.find((entry) => entry.label === label || entry.role === label);
  if (!found) throw new Error(`no item '${label}'`);
  return found;
}

function click(entry: MenuItemConstructorOptions): void {
  if (!entry.click) throw new Error(`'${String(entry.label)}' has no click`);
  (entry.click as () => void)();
}

describe('buildMenuTemplate', () => {
  it('has File, Edit, View and Help on Linux and Windows', () => {
    const template = buildMenuTemplate(linux, actions().fake);
    expect(template.map((menu) => menu.label ?? menu.role)).toEqual([
      'File',
      'editMenu',
      'View',
      'help',
    ]);
  });

  it('puts About and Quit in the app menu on macOS', () => {
    const template = buildMenuTemplate({ ...linux, platform: 'darwin' }, actions().fake);
    expect(template.map((menu) => menu.label ?? menu.role)).toEqual([
      'RLM Studio',
      'File',
      'editMenu',
      'View',
      'windowMenu',
      'help',
    ]);
    const appMenu = submenu(template, 'RLM Studio');
    expect(appMenu.map((entry) => entry.label ?? entry.role ?? entry.type)).toContain('quit');
    expect(item(submenu(template, 'File'), 'close')).toBeDefined();
  });

  it('File offers Import PDFs…, Open Workspace… and Quit', () => {
    const { fake } = actions();
    const file = submenu(buildMenuTemplate(linux, fake), 'File');
    click(item(file, 'Import PDFs…'));
    click(item(file, 'Open Workspace…'));
    expect(fake.importPdfs).toHaveBeenCalledOnce();
    expect(fake.openWorkspace).toHaveBeenCalledOnce();
    expect(item(file, 'quit').role).toBe('quit');
  });

  it('View navigates to the six views with CmdOrCtrl+1..6', () => {
    const { fake, emitted } = actions();
    const view = submenu(buildMenuTemplate(linux, fake), 'View');
    expect(viewMenuEntries.map((entry) => entry.view)).toEqual([...viewIds]);
    viewMenuEntries.forEach(({ label }, index) => {
      const entry = item(view, label);
      expect(entry.accelerator).toBe(`CmdOrCtrl+${index + 1}`);
      expect(entry.registerAccelerator).toBe(false);
      click(entry);
    });
    expect(emitted).toEqual(viewIds.map((view) => ({ kind: 'menu.navigate', view, at: 1000 })));
  });

  it('View toggles the theme and shows the shortcuts through events', () => {
    const { fake, emitted } = actions();
    const view = submenu(buildMenuTemplate(linux, fake), 'View');
    const theme = item(view, 'Toggle Theme');
    expect(theme.accelerator).toBe('CmdOrCtrl+Shift+L');
    expect(theme.registerAccelerator).toBe(false);
    click(theme);
    click(item(view, 'Keyboard Shortcuts'));
    expect(emitted).toEqual([
      { kind: 'menu.toggleTheme', at: 1000 },
      { kind: 'menu.showShortcuts', at: 1000 },
    ]);
  });

  it('shows ? for the shortcuts, except on macOS where it would swallow typed question marks', () => {
    const shortcuts = (platform: NodeJS.Platform) =>
      item(
        submenu(buildMenuTemplate({ ...linux, platform }, actions().fake), 'View'),
        'Keyboard Shortcuts',
      );
    expect(shortcuts('linux')).toMatchObject({ accelerator: '?', registerAccelerator: false });
    expect(shortcuts('darwin').accelerator).toBeUndefined();
  });

  it('offers reload and developer tools only in development', () => {
    const roles = (isDev: boolean) =>
      submenu(buildMenuTemplate({ ...linux, isDev }, actions().fake), 'View').map((e) => e.role);
    expect(roles(false)).not.toContain('toggleDevTools');
    expect(roles(false)).not.toContain('reload');
    expect(roles(true)).toEqual(expect.arrayContaining(['reload', 'toggleDevTools']));
  });

  it('Help shows About', () => {
    const { fake } = actions();
    click(item(submenu(buildMenuTemplate(linux, fake), 'help'), 'About RLM Studio'));
    expect(fake.showAbout).toHaveBeenCalledOnce();
  });

  it('uses no accelerator twice', () => {
    const accelerators = (items: MenuItemConstructorOptions[]): string[] =>
      items.flatMap((entry) => [
        ...(entry.accelerator ? [entry.accelerator] : []),
        ...(Array.isArray(entry.submenu) ? accelerators(entry.submenu) : []),
      ]);
    const all = accelerators(buildMenuTemplate({ ...linux, isDev: true }, actions().fake));
    expect(new Set(all).size).toBe(all.length);
  });
});
