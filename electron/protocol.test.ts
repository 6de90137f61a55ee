import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { contentTypeOf } from '../host/serve/content-types.ts';
import { contentSecurityPolicy } from '../host/serve/csp.ts';
import {
  appSchemePrivileges,
  assertRendererBuilt,
  createAppProtocolHandler,
  RendererNotBuiltError,
  resolveAppRequest,
} from './protocol.ts';

const root = join(tmpdir(), 'rlm-renderer');

describe('resolveAppRequest', () => {
  it.each([
    ['app://rlm-studio/', 'index.html'],
    ['app://rlm-studio/index.html', 'index.html'],
    ['app://rlm-studio/assets/index-abc.js', 'assets/index-abc.js'],
    ['app://rlm-studio/assets/a%20b.css?v=1#x', 'assets/a b.css'],
    ['app://rlm-studio/runs/42', 'index.html'],
  ])('maps %s into the renderer folder', (url, file) => {
    expect(resolveAppRequest(root, url)).toEqual({ kind: 'file', path: join(root, file) });
  });

  it.each([
    'app://rlm-studio/..%2f..%2fetc%2fpasswd',
    'app://rlm-studio/assets/..%2F..%2F..%2Fsecret.txt',
    'app://rlm-studio/%2e%2e%2fsecret.txt',
    'app://rlm-studio/..%5c..%5csecret.txt',
  ])('refuses a path that leaves the folder: %s', (url) => {
    const resolution = resolveAppRequest(root, url);
    if (process.platform !== 'win32' && url.includes('%5c')) {
      // On POSIX a backslash is an ordinary file-name character: it stays inside the folder.
      expect(resolution).toMatchObject({ kind: 'file' });
      return;
    }
    expect(resolution).toEqual({
      kind: 'refused',
      status: 403,
      reason: 'the path leaves the renderer folder',
    });
  });

  it('keeps dot segments inside the folder (the URL parser resolves them first)', () => {
    expect(resolveAppRequest(root, 'app://rlm-studio/../../etc/passwd.txt')).toEqual({
      kind: 'file',
      path: join(root, 'etc', 'passwd.txt'),
    });
  });

  it.each([
    ['https://rlm-studio/index.html', 404],
    ['app://other/index.html', 404],
    ['app://rlm-studio/%E0%A4%A', 400],
    ['app://rlm-studio/a%00.js', 400],
  ])('refuses %s with %i', (url, status) => {
    expect(resolveAppRequest(root, url)).toMatchObject({ kind: 'refused', status });
  });
});

describe('the app:// handler', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rlm-protocol-'));
  mkdirSync(join(dir, 'renderer', 'assets'), { recursive: true });
  writeFileSync(join(dir, 'renderer', 'index.html'), '<!doctype html><title>RLM</title>');
  writeFileSync(join(dir, 'renderer', 'assets', 'app.js'), 'export {};');
  writeFileSync(join(dir, 'renderer', 'assets', 'py.wasm'), new Uint8Array([0, 97, 115, 109]));
  writeFileSync(join(dir, 'secret.txt'), 'do not serve');
  const handle = createAppProtocolHandler(join(dir, 'renderer'));
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves files with the CSP header, the content type and nosniff', async () => {
    const response = await handle({ url: 'app://rlm-studio/' });
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('<title>RLM</title>');
    expect(response.headers.get('content-security-policy')).toBe(contentSecurityPolicy());
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');

    const script = await handle({ url: 'app://rlm-studio/assets/app.js' });
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    const wasm = await handle({ url: 'app://rlm-studio/assets/py.wasm' });
    expect(wasm.headers.get('content-type')).toBe('application/wasm');
  });

  it('answers 403 to traversal and 404 to a missing file, both with the CSP', async () => {
    const escape = await handle({ url: 'app://rlm-studio/..%2fsecret.txt' });
    expect(escape.status).toBe(403);
    expect(await escape.text()).not.toContain('do not serve');
    expect(escape.headers.get('content-security-policy')).toBe(contentSecurityPolicy());

    const missing = await handle({ url: 'app://rlm-studio/assets/none.js' });
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-security-policy')).toBe(contentSecurityPolicy());
  });

  it('tells the user to build when the renderer is missing', () => {
    expect(() => {
      assertRendererBuilt(join(dir, 'renderer'));
    }).not.toThrow();
    expect(() => {
      assertRendererBuilt(join(dir, 'nowhere'));
    }).toThrow(RendererNotBuiltError);
    expect(() => {
      assertRendererBuilt(join(dir, 'nowhere'));
    }).toThrow(/npm run build/);
  });
});

describe('the app scheme', () => {
  it('is standard and secure, with fetch, and never bypasses the CSP', () => {
    expect(appSchemePrivileges).toMatchObject({
      scheme: 'app',
      privileges: { standard: true, secure: true, supportFetchAPI: true, bypassCSP: false },
    });
  });

  it('types unknown files as opaque bytes', () => {
    expect(contentTypeOf('/x/model.safetensors')).toBe('application/octet-stream');
    expect(contentTypeOf('/x/STYLE.CSS')).toBe('text/css; charset=utf-8');
  });
});
