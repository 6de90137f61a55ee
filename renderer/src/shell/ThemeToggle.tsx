// The theme button: it shows where it will take you (a moon while light is shown) and saves an
// explicit 'light' or 'dark' setting, never 'system'.
import type { ShortcutHint } from '../shortcuts/chord.ts';
import { oppositeTheme } from '../theme/theme.ts';
import type { ThemeControl } from '../theme/useTheme.ts';

function MoonIcon() {
  return (
    <svg viewBox="0 0 16 16" width="16" height="16" aria-hidden="true">
      <path d="M13.5 10.2A6 6 0 0 1 5.8 2.5a6 6 0 1 0 7.7 7.7Z" fill="currentColor" />
    </svg>
  );
}

function SunIcon() {
  return (
    <svg viewBox="0 0 16 16" width="16" height="16" aria-hidden="true">
      <circle cx="8" cy="8" r="3" fill="currentColor" />
      <path
        d="M8 1v2M8 13v2M1 8h2M13 8h2M3 3l1.4 1.4M11.6 11.6 13 13M3 13l1.4-1.4M11.6 4.4 13 3"
        stroke="currentColor"
        strokeWidth="1.4"
        strokeLinecap="round"
      />
    </svg>
  );
}

export function ThemeToggle({ theme, shortcut }: { theme: ThemeControl; shortcut: ShortcutHint }) {
  const target = oppositeTheme(theme.shown);
  return (
    <button
      type="button"
      className="sidebar-action"
      data-testid="theme-toggle"
      data-shown={theme.shown}
      data-setting={theme.setting}
      aria-label={`Switch to ${target} theme`}
      aria-keyshortcuts={shortcut.aria}
      title={`Switch to ${target} theme (${shortcut.label})`}
      onClick={theme.toggle}
    >
      {target === 'dark' ? <MoonIcon /> : <SunIcon />}
      <span>{target === 'dark' ? 'Dark theme' : 'Light theme'}</span>
    </button>
  );
}
