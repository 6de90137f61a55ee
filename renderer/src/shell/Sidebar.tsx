// The left sidebar: the six views as hash-route links with their shortcuts, Settings below them,
// and the window-wide actions (theme, shortcuts help) at its foot.
import { NavLink } from 'react-router';
import { shortcutHint, type Platform } from '../shortcuts/chord.ts';
import type { ThemeControl } from '../theme/useTheme.ts';
import { ThemeToggle } from './ThemeToggle.tsx';
import { shortcutsHelpKeys, themeToggleKeys } from './useAppShortcuts.ts';
import { settingsEntry, views } from './views.ts';

export interface SidebarProps {
  theme: ThemeControl;
  platform: Platform;
  onShowShortcuts: () => void;
}

export function Sidebar({ theme, platform, onShowShortcuts }: SidebarProps) {
  const help = shortcutHint(shortcutsHelpKeys, platform);
  return (
    <aside className="sidebar">
      <div className="sidebar-brand">RLM Studio</div>
      <nav className="sidebar-nav" aria-label="Views">
        {views.map((view) => {
          const hint = shortcutHint(view.keys, platform);
          return (
            <NavLink
              key={view.id}
              to={view.path}
              className="nav-link"
              data-testid={`nav-${view.id}`}
              aria-keyshortcuts={hint.aria}
            >
              <span>{view.label}</span>
              <kbd className="nav-shortcut">{hint.label}</kbd>
            </NavLink>
          );
        })}
        <NavLink
          to={settingsEntry.path}
          className="nav-link"
          data-testid={`nav-${settingsEntry.id}`}
        >
          <span>{settingsEntry.label}</span>
        </NavLink>
      </nav>
      <div className="sidebar-actions">
        <ThemeToggle theme={theme} shortcut={shortcutHint(themeToggleKeys, platform)} />
        <button
          type="button"
          className="sidebar-action"
          data-testid="shortcuts-button"
          aria-keyshortcuts={help.aria}
          title={`Keyboard shortcuts (${help.label})`}
          onClick={onShowShortcuts}
        >
          <kbd className="sidebar-action-key">{help.label}</kbd>
          <span>Shortcuts</span>
        </button>
      </div>
    </aside>
  );
}
