// The theme setting of the workspace, kept in step with the engine: read on start, written on toggle,
// and followed through 'settings.changed' so every open window shows the same theme.
import {
  useCallback,
  useEffect,
  useLayoutEffect,
  useRef,
  useState,
  useSyncExternalStore,
} from 'react';
import type { Theme } from '../../../app/api/index.ts';
import { useApi } from '../api/ApiContext.tsx';
import { useApiEvent } from '../api/useApiEvent.ts';
import {
  applyShownTheme,
  readThemeHint,
  subscribeSystemTheme,
  systemPrefersDark,
  writeThemeHint,
} from './document-theme.ts';
import { oppositeTheme, resolveTheme, type ShownTheme } from './theme.ts';

export interface ThemeControl {
  setting: Theme;
  shown: ShownTheme;
  /** Switches to the explicit opposite of what is shown and saves it in the workspace settings. */
  toggle: () => void;
}

export function useTheme(): ThemeControl {
  const api = useApi();
  const [setting, setSetting] = useState<Theme>(readThemeHint);
  // Once the user toggles or another window reports a change, a late 'settings.get' is stale.
  const settled = useRef(false);
  const systemDark = useSyncExternalStore(subscribeSystemTheme, systemPrefersDark);
  const shown = resolveTheme(setting, systemDark);

  useEffect(() => {
    let live = true;
    api.call('settings.get', {}).then(
      (settings) => {
        if (live && !settled.current) setSetting(settings.theme);
      },
      (error: unknown) => {
        console.error('[rlm-studio theme] could not read the theme setting:', error);
      },
    );
    return () => {
      live = false;
    };
  }, [api]);

  useApiEvent('settings.changed', (event) => {
    settled.current = true;
    setSetting(event.settings.theme);
  });

  useLayoutEffect(() => {
    applyShownTheme(shown);
  }, [shown]);

  useEffect(() => {
    writeThemeHint(setting);
  }, [setting]);

  const toggle = useCallback(() => {
    const next = oppositeTheme(shown);
    settled.current = true;
    setSetting(next);
    api.call('settings.update', { theme: next }).catch((error: unknown) => {
      console.error('[rlm-studio theme] could not save the theme setting:', error);
    });
  }, [api, shown]);

  return { setting, shown, toggle };
}
