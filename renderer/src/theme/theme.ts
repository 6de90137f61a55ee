// Which theme is shown, as a pure function of the setting and the system preference. The setting is
// 'system' | 'light' | 'dark' (app/api); what is shown is always 'light' or 'dark'.
import type { Theme } from '../../../app/api/index.ts';

export type ShownTheme = 'light' | 'dark';

export function resolveTheme(setting: Theme, systemPrefersDark: boolean): ShownTheme {
  switch (setting) {
    case 'light':
    case 'dark':
      return setting;
    case 'system':
      return systemPrefersDark ? 'dark' : 'light';
  }
}

/** The toggle always picks the explicit opposite of what the user sees, never back to 'system'. */
export function oppositeTheme(shown: ShownTheme): ShownTheme {
  return shown === 'dark' ? 'light' : 'dark';
}
