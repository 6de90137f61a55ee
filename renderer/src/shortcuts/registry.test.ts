// The shortcut registry in node: chord matching, Mod per platform, dispose, conflicts, editable targets.
import { describe, expect, it, vi } from 'vitest';
import {
  InvalidShortcutError,
  platformFromUserAgent,
  shortcutHint,
  type KeyStroke,
} from './chord.ts';
import { ShortcutConflictError, ShortcutRegistry } from './registry.ts';

function stroke(key: string, modifiers: Partial<Omit<KeyStroke, 'key'>> = {}): KeyStroke {
  return {
    key,
    ctrlKey: false,
    metaKey: false,
    altKey: false,
    shiftKey: false,
    inEditableTarget: false,
    ...modifiers,
  };
}

describe('ShortcutRegistry', () => {
  it('runs the shortcut whose chord matches, and nothing else', () => {
    const registry = new ShortcutRegistry('other');
    const run = vi.fn();
    registry.register({ id: 'theme.toggle', keys: 'Mod+Shift+L', description: 'Toggle', run });

    expect(registry.handle(stroke('L', { ctrlKey: true, shiftKey: true }))).toBe(true);
    expect(registry.handle(stroke('l', { ctrlKey: true }))).toBe(false);
    expect(registry.handle(stroke('L', { ctrlKey: true, shiftKey: true, altKey: true }))).toBe(
      false,
    );
    expect(registry.handle(stroke('Shift', { shiftKey: true }))).toBe(false);
    expect(run).toHaveBeenCalledTimes(1);
  });

  it('resolves Mod to Ctrl on Linux and Windows, and to Meta on a Mac', () => {
    const other = new ShortcutRegistry('other');
    const mac = new ShortcutRegistry('mac');
    const onOther = vi.fn();
    const onMac = vi.fn();
    other.register({ id: 'view.papers', keys: 'Mod+1', description: 'Papers', run: onOther });
    mac.register({ id: 'view.papers', keys: 'Mod+1', description: 'Papers', run: onMac });

    expect(other.handle(stroke('1', { metaKey: true }))).toBe(false);
    expect(other.handle(stroke('1', { ctrlKey: true }))).toBe(true);
    expect(mac.handle(stroke('1', { ctrlKey: true }))).toBe(false);
    expect(mac.handle(stroke('1', { metaKey: true }))).toBe(true);
    expect(onOther).toHaveBeenCalledOnce();
    expect(onMac).toHaveBeenCalledOnce();
  });

  it('matches symbols whatever Shift the layout needed to type them', () => {
    const registry = new ShortcutRegistry('other');
    const run = vi.fn();
    registry.register({ id: 'help.open', keys: '?', description: 'Help', run });

    expect(registry.handle(stroke('?', { shiftKey: true }))).toBe(true);
    expect(registry.handle(stroke('?'))).toBe(true);
    expect(run).toHaveBeenCalledTimes(2);
  });

  it('matches named keys case-insensitively, with aliases', () => {
    const registry = new ShortcutRegistry('other');
    const run = vi.fn();
    registry.register({ id: 'help.close', keys: 'Esc', description: 'Close', run });

    expect(registry.handle(stroke('Escape'))).toBe(true);
    expect(run).toHaveBeenCalledOnce();
  });

  it('stops matching once disposed, and a second dispose is harmless', () => {
    const registry = new ShortcutRegistry('other');
    const first = vi.fn();
    const dispose = registry.register({ id: 'a', keys: 'Mod+1', description: 'A', run: first });
    dispose();
    expect(registry.handle(stroke('1', { ctrlKey: true }))).toBe(false);

    const second = vi.fn();
    registry.register({ id: 'b', keys: 'Mod+1', description: 'B', run: second });
    dispose();
    expect(registry.handle(stroke('1', { ctrlKey: true }))).toBe(true);
    expect(first).not.toHaveBeenCalled();
    expect(second).toHaveBeenCalledOnce();
  });

  it('throws a ShortcutConflictError naming both ids when a chord is taken', () => {
    const registry = new ShortcutRegistry('other');
    registry.register({ id: 'view.papers', keys: 'Mod+1', description: 'Papers', run: vi.fn() });

    expect(() =>
      registry.register({ id: 'view.run', keys: 'Ctrl+1', description: 'Run', run: vi.fn() }),
    ).toThrow(ShortcutConflictError);
    expect(() =>
      registry.register({ id: 'view.run', keys: 'Mod+1', description: 'Run', run: vi.fn() }),
    ).toThrow(/'view\.run'.*'view\.papers'/);
  });

  it('treats a symbol with and without Shift as the same chord', () => {
    const registry = new ShortcutRegistry('mac');
    registry.register({ id: 'help.open', keys: '?', description: 'Help', run: vi.fn() });

    expect(() =>
      registry.register({ id: 'help.other', keys: 'Shift+?', description: 'Help', run: vi.fn() }),
    ).toThrow(/'help\.other'.*'help\.open' \(as '\?'\)/);
  });

  it('on a Mac, Mod and Ctrl are different chords', () => {
    const registry = new ShortcutRegistry('mac');
    registry.register({ id: 'a', keys: 'Mod+1', description: 'A', run: vi.fn() });
    expect(() =>
      registry.register({ id: 'b', keys: 'Ctrl+1', description: 'B', run: vi.fn() }),
    ).not.toThrow();
  });

  it('registers all or none', () => {
    const registry = new ShortcutRegistry('other');
    registry.register({ id: 'taken', keys: 'Mod+2', description: 'Taken', run: vi.fn() });

    expect(() =>
      registry.registerAll([
        { id: 'a', keys: 'Mod+1', description: 'A', run: vi.fn() },
        { id: 'b', keys: 'Mod+2', description: 'B', run: vi.fn() },
      ]),
    ).toThrow(ShortcutConflictError);
    expect(registry.list().map((s) => s.id)).toEqual(['taken']);
  });

  it('ignores keystrokes in editable targets unless the shortcut opts in', () => {
    const registry = new ShortcutRegistry('other');
    const help = vi.fn();
    const navigate = vi.fn();
    registry.register({ id: 'help.open', keys: '?', description: 'Help', run: help });
    registry.register({
      id: 'view.papers',
      keys: 'Mod+1',
      description: 'Papers',
      run: navigate,
      whenEditing: true,
    });

    expect(registry.handle(stroke('?', { shiftKey: true, inEditableTarget: true }))).toBe(false);
    expect(registry.handle(stroke('1', { ctrlKey: true, inEditableTarget: true }))).toBe(true);
    expect(help).not.toHaveBeenCalled();
    expect(navigate).toHaveBeenCalledOnce();
  });

  it('lists shortcuts in registration order with platform labels', () => {
    const mac = new ShortcutRegistry('mac');
    const other = new ShortcutRegistry('other');
    for (const registry of [mac, other]) {
      registry.register({ id: 'theme', keys: 'Mod+Shift+L', description: 'Theme', run: vi.fn() });
      registry.register({ id: 'help', keys: '?', description: 'Help', run: vi.fn() });
      registry.register({ id: 'close', keys: 'Escape', description: 'Close', run: vi.fn() });
    }

    expect(mac.list().map((s) => s.label)).toEqual(['⇧⌘L', '?', 'Esc']);
    expect(other.list()).toEqual([
      { id: 'theme', keys: 'Mod+Shift+L', label: 'Ctrl+Shift+L', description: 'Theme' },
      { id: 'help', keys: '?', label: '?', description: 'Help' },
      { id: 'close', keys: 'Escape', label: 'Esc', description: 'Close' },
    ]);
  });

  it('tells subscribers when the list changes', () => {
    const registry = new ShortcutRegistry('other');
    const changed = vi.fn();
    const unsubscribe = registry.subscribe(changed);
    const before = registry.revision();
    const dispose = registry.register({ id: 'a', keys: 'Mod+1', description: 'A', run: vi.fn() });
    dispose();
    dispose();
    unsubscribe();
    registry.register({ id: 'b', keys: 'Mod+2', description: 'B', run: vi.fn() });

    expect(changed).toHaveBeenCalledTimes(2);
    expect(registry.revision()).toBe(before + 3);
  });

  it('rejects key specs it cannot parse', () => {
    const registry = new ShortcutRegistry('other');
    const bad = (keys: string) => () =>
      registry.register({ id: 'bad', keys, description: 'Bad', run: vi.fn() });

    expect(bad('Hyper+K')).toThrow(InvalidShortcutError);
    expect(bad('Mod+')).toThrow(/names no key/);
    expect(bad('Mod+Shift')).toThrow(/is a modifier/);
  });
});

describe('platformFromUserAgent', () => {
  it('recognizes macOS and treats the rest as Ctrl platforms', () => {
    expect(platformFromUserAgent('Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5)')).toBe('mac');
    expect(platformFromUserAgent('Mozilla/5.0 (X11; Linux x86_64)')).toBe('other');
    expect(platformFromUserAgent('Mozilla/5.0 (Windows NT 10.0; Win64; x64)')).toBe('other');
  });
});

describe('shortcutHint', () => {
  it('labels for people and for aria-keyshortcuts', () => {
    expect(shortcutHint('Mod+Shift+L', 'mac')).toEqual({ label: '⇧⌘L', aria: 'Shift+Meta+L' });
    expect(shortcutHint('Mod+1', 'other')).toEqual({ label: 'Ctrl+1', aria: 'Control+1' });
    expect(shortcutHint('?', 'other')).toEqual({ label: '?', aria: '?' });
  });
});
