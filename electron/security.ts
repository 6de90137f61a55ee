// The window's security posture: an isolated, sandboxed renderer without Node; navigation only
// within app://rlm-studio; new windows never (web links go to the system browser); no permissions.
import { isAppUrl } from './origin.ts';

/** The renderer's webPreferences. Every flag is the secure value, stated even where it is the default. */
export function secureWebPreferences(preloadPath: string) {
  return {
    preload: preloadPath,
    contextIsolation: true,
    sandbox: true,
    nodeIntegration: false,
    nodeIntegrationInWorker: false,
    nodeIntegrationInSubFrames: false,
    webSecurity: true,
    allowRunningInsecureContent: false,
    webviewTag: false,
    navigateOnDragDrop: false,
    safeDialogs: true,
  } as const;
}

export type NavigationDecision = 'allow' | 'open-externally' | 'deny';

/** Where a navigation to `url` may go: app pages in place, web links to the system browser. */
export function decideNavigation(url: string): NavigationDecision {
  if (isAppUrl(url)) return 'allow';
  const parsed = URL.parse(url);
  if (parsed?.protocol === 'https:' || parsed?.protocol === 'http:') return 'open-externally';
  return 'deny';
}

/** The parts of WebContents the guards need; the real WebContents satisfies it. */
export interface GuardedContents {
  setWindowOpenHandler(handler: (details: { url: string }) => { action: 'deny' }): void;
  on(event: 'will-navigate', listener: (event: NavigationEventLike) => void): unknown;
}

export interface NavigationEventLike {
  readonly url: string;
  preventDefault(): void;
}

export type OpenExternally = (url: string) => Promise<void>;

/** Installs the window-open and navigation guards on one WebContents. */
export function guardNavigation(contents: GuardedContents, openExternally: OpenExternally): void {
  contents.setWindowOpenHandler(({ url }) => {
    // The app never opens a second window; a web link opens in the user's browser instead.
    if (decideNavigation(url) === 'open-externally') reportFailure(openExternally(url), url);
    return { action: 'deny' };
  });
  contents.on('will-navigate', (event) => {
    const decision = decideNavigation(event.url);
    if (decision === 'allow') return;
    event.preventDefault();
    if (decision === 'open-externally') reportFailure(openExternally(event.url), event.url);
  });
}

/** The part of a Session that answers permission prompts; the real Session satisfies it. */
export interface PermissionSession {
  setPermissionRequestHandler(
    handler: (contents: unknown, permission: string, callback: (granted: boolean) => void) => void,
  ): void;
  setPermissionCheckHandler(handler: (contents: unknown, permission: string) => boolean): void;
}

/** The app needs no browser permission (camera, notifications, geolocation...): refuse them all. */
export function denyAllPermissions(session: PermissionSession): void {
  session.setPermissionRequestHandler((_contents, _permission, callback) => {
    callback(false);
  });
  session.setPermissionCheckHandler(() => false);
}

function reportFailure(opening: Promise<void>, url: string): void {
  opening.catch((error: unknown) => {
    console.error(`[rlm-studio] could not open '${url}' in the system browser:`, error);
  });
}
