// The window's frame: sidebar, the routed view, status bar and the shortcuts help. It owns the
// shortcut registry and wires keys and menu events to the same few actions.
import { Suspense, useCallback, useState } from 'react';
import { Outlet, useNavigate } from 'react-router';
import type { ViewId } from '../../../app/api/index.ts';
import { platformFromUserAgent } from '../shortcuts/chord.ts';
import { ShortcutRegistry } from '../shortcuts/registry.ts';
import { useShortcutListener } from '../shortcuts/useShortcutListener.ts';
import { useTheme } from '../theme/useTheme.ts';
import { ShortcutsHelp } from './ShortcutsHelp.tsx';
import { Sidebar } from './Sidebar.tsx';
import { StatusBar } from './StatusBar.tsx';
import { useAppShortcuts, type ShellActions } from './useAppShortcuts.ts';
import { useMenuEvents } from './useMenuEvents.ts';
import { viewPath } from './views.ts';

export function AppShell() {
  const navigate = useNavigate();
  const theme = useTheme();
  const [registry] = useState(
    () => new ShortcutRegistry(platformFromUserAgent(navigator.userAgent)),
  );
  const [helpOpen, setHelpOpen] = useState(false);

  const goTo = useCallback(
    (view: ViewId) => {
      void navigate(viewPath(view));
    },
    [navigate],
  );
  const openShortcutsHelp = useCallback(() => {
    setHelpOpen(true);
  }, []);
  const closeShortcutsHelp = useCallback(() => {
    setHelpOpen(false);
  }, []);
  const actions: ShellActions = { goTo, toggleTheme: theme.toggle, openShortcutsHelp };

  useShortcutListener(registry);
  useAppShortcuts(registry, actions);
  useMenuEvents(actions);

  return (
    <div className="shell">
      <Sidebar theme={theme} platform={registry.platform} onShowShortcuts={openShortcutsHelp} />
      <main className="shell-main">
        <Suspense fallback={<p className="view-loading">Loading…</p>}>
          <Outlet />
        </Suspense>
      </main>
      <StatusBar />
      {helpOpen && <ShortcutsHelp registry={registry} onClose={closeShortcutsHelp} />}
    </div>
  );
}
