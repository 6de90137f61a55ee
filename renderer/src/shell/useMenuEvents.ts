// The desktop shell's menu speaks through engine events; this maps them to the same actions the
// keyboard shortcuts run, so menu and keys never drift apart.
import { useApiEvent } from '../api/useApiEvent.ts';
import type { ShellActions } from './useAppShortcuts.ts';

export function useMenuEvents({ goTo, toggleTheme, openShortcutsHelp }: ShellActions): void {
  useApiEvent('menu.navigate', (event) => {
    goTo(event.view);
  });
  useApiEvent('menu.toggleTheme', () => {
    toggleTheme();
  });
  useApiEvent('menu.showShortcuts', () => {
    openShortcutsHelp();
  });
}
