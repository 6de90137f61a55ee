// The app-wide shortcuts: Mod+1..5 open the views, Mod+Shift+L toggles the theme, '?' opens the
// shortcuts help. Modifier chords type nothing, so they also work while focus is in a text field.
import { useEffect } from 'react';
import type { ViewId } from '../../../app/api/index.ts';
import type { ShortcutDefinition, ShortcutRegistry } from '../shortcuts/registry.ts';
import { views } from './views.ts';

export interface ShellActions {
  goTo: (view: ViewId) => void;
  toggleTheme: () => void;
  openShortcutsHelp: () => void;
}

export const themeToggleKeys = 'Mod+Shift+L';
export const shortcutsHelpKeys = '?';

export function useAppShortcuts(
  registry: ShortcutRegistry,
  { goTo, toggleTheme, openShortcutsHelp }: ShellActions,
): void {
  useEffect(() => {
    const definitions: ShortcutDefinition[] = [
      ...views.map((view) => ({
        id: `view.${view.id}`,
        keys: view.keys,
        description: `Open ${view.label}`,
        run: () => {
          goTo(view.id);
        },
        whenEditing: true,
      })),
      {
        id: 'theme.toggle',
        keys: themeToggleKeys,
        description: 'Switch between light and dark theme',
        run: toggleTheme,
        whenEditing: true,
      },
      {
        id: 'help.shortcuts',
        keys: shortcutsHelpKeys,
        description: 'Show keyboard shortcuts',
        run: openShortcutsHelp,
      },
    ];
    return registry.registerAll(definitions);
  }, [registry, goTo, toggleTheme, openShortcutsHelp]);
}
