// The theme's touch points in the browser: the system preference, the `data-theme` attribute the CSS
// keys on, and a local hint of the last setting so the first paint already has the right colours.
import { Theme } from '../../../app/api/index.ts';
import type { ShownTheme } from './theme.ts';

const darkQuery = '(prefers-color-scheme: dark)';
const hintKey = 'rlm-studio.theme';

export function systemPrefersDark(): boolean {
  return window.matchMedia(darkQuery).matches;
}

export function subscribeSystemTheme(onChange: () => void): () => void {
  const query = window.matchMedia(darkQuery);
  query.addEventListener('change', onChange);
  return () => {
    query.removeEventListener('change', onChange);
  };
}

export function applyShownTheme(shown: ShownTheme): void {
  document.documentElement.dataset.theme = shown;
}

/** The last setting this window saw. Only a first-paint hint: the workspace settings are the truth. */
export function readThemeHint(): Theme {
  try {
    return Theme.catch('system').parse(localStorage.getItem(hintKey));
  } catch (error) {
    // Storage can be disabled for this origin; the hint is optional, so say so and go on without it.
    console.warn('[rlm-studio theme] no local theme hint:', error);
    return 'system';
  }
}

export function writeThemeHint(setting: Theme): void {
  try {
    localStorage.setItem(hintKey, setting);
  } catch (error) {
    console.warn('[rlm-studio theme] could not keep a local theme hint:', error);
  }
}
