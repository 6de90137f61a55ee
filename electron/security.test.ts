import { describe, expect, it, vi } from 'vitest';
import { isAppUrl } from './origin.ts';
import {
  decideNavigation,
  denyAllPermissions,
  guardNavigation,
  secureWebPreferences,
  type GuardedContents,
  type NavigationEventLike,
  type PermissionSession,
} from './security.ts';

describe('secureWebPreferences', () => {
  it('isolates and sandboxes the renderer, without Node, with the preload', () => {
    expect(secureWebPreferences('/app/dist/electron/preload.cjs')).toMatchObject({
      preload: '/app/dist/electron/preload.cjs',
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
    });
  });
});

describe('isAppUrl', () => {
  it.each([
    ['app://rlm-studio/index.html', true],
    ['app://rlm-studio/', true],
    ['APP://RLM-STUDIO/runs', true],
    ['app://rlm-studio.evil.example/', false],
    ['app://other/', false],
    ['https://rlm-studio/', false],
    ['not a url', false],
  ])('%s -> %s', (url, expected) => {
    expect(isAppUrl(url)).toBe(expected);
  });
});

describe('decideNavigation', () => {
  it.each([
    ['app://rlm-studio/index.html#/runs', 'allow'],
    ['https://arxiv.org/abs/2512.24601', 'open-externally'],
    ['http://localhost:8000/v1', 'open-externally'],
    ['file:///etc/passwd', 'deny'],
    ['javascript:alert(1)', 'deny'],
    ['app://other/index.html', 'deny'],
    ['', 'deny'],
  ])('%s -> %s', (url, decision) => {
    expect(decideNavigation(url)).toBe(decision);
  });
});

function fakeContents() {
  let openHandler: ((details: { url: string }) => { action: 'deny' }) | undefined;
  let navigate: ((event: NavigationEventLike) => void) | undefined;
  const contents: GuardedContents = {
    setWindowOpenHandler(handler) {
      openHandler = handler;
    },
    on(_event, listener) {
      navigate = listener;
    },
  };
  const open = (url: string) => openHandler?.({ url });
  const willNavigate = (url: string) => {
    const event = { url, preventDefault: vi.fn() };
    navigate?.(event);
    return event.preventDefault.mock.calls.length > 0;
  };
  return { contents, open, willNavigate };
}

describe('guardNavigation', () => {
  it('denies every new window and opens web links in the system browser', () => {
    const fake = fakeContents();
    const openExternally = vi.fn(() => Promise.resolve());
    guardNavigation(fake.contents, openExternally);

    expect(fake.open('https://arxiv.org/')).toEqual({ action: 'deny' });
    expect(fake.open('app://rlm-studio/index.html')).toEqual({ action: 'deny' });
    expect(fake.open('file:///etc/passwd')).toEqual({ action: 'deny' });
    expect(openExternally.mock.calls).toEqual([['https://arxiv.org/']]);
  });

  it('lets the app navigate within itself and stops everything else', () => {
    const fake = fakeContents();
    const openExternally = vi.fn(() => Promise.resolve());
    guardNavigation(fake.contents, openExternally);

    expect(fake.willNavigate('app://rlm-studio/index.html')).toBe(false);
    expect(fake.willNavigate('https://evil.example/')).toBe(true);
    expect(fake.willNavigate('file:///home/user/.ssh/id_rsa')).toBe(true);
    expect(openExternally.mock.calls).toEqual([['https://evil.example/']]);
  });

  it('logs, never throws, when the system browser cannot be opened', async () => {
    const fake = fakeContents();
    const error = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    guardNavigation(fake.contents, () => Promise.reject(new Error('no browser')));
    fake.open('https://arxiv.org/');
    await vi.waitFor(() => {
      expect(error).toHaveBeenCalledWith(
        expect.stringContaining("'https://arxiv.org/'"),
        expect.any(Error),
      );
    });
    error.mockRestore();
  });
});

describe('denyAllPermissions', () => {
  it('answers every permission request and check with no', () => {
    let request: Parameters<PermissionSession['setPermissionRequestHandler']>[0] | undefined;
    let check: Parameters<PermissionSession['setPermissionCheckHandler']>[0] | undefined;
    denyAllPermissions({
      setPermissionRequestHandler: (handler) => (request = handler),
      setPermissionCheckHandler: (handler) => (check = handler),
    });
    for (const permission of ['media', 'notifications', 'geolocation', 'clipboard-read']) {
      const callback = vi.fn();
      request?.({}, permission, callback);
      expect(callback).toHaveBeenCalledWith(false);
      expect(check?.({}, permission)).toBe(false);
    }
  });
});
