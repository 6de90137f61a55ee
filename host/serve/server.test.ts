import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { ResponseFrame } from '../../app/api/index.ts';
import { composeEngine, type Engine } from '../index.ts';
import { openWorkspace, type Workspace } from '../../app/store/index.ts';
import { resolveStaticPath } from './static-files.ts';
import { startServer, type RunningServer } from './server.ts';

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function get(port: number, path: string, headers: Record<string, string> = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port, path, headers: { host: `127.0.0.1:${port}`, ...headers } },
      (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** Opens a socket; resolves with it when open, or with the HTTP status that refused it. */
function connect(url: string, headers: Record<string, string> = {}): Promise<WebSocket | number> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, { headers });
    ws.on('open', () => {
      resolve(ws);
    });
    ws.on('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0);
    });
    ws.on('error', () => {
      resolve(-1);
    });
  });
}

function nextFrame(ws: WebSocket): Promise<unknown> {
  return new Promise((resolve) =>
    ws.once('message', (data: Buffer) => {
      resolve(JSON.parse(data.toString()));
    }),
  );
}

let dir: string;
let workspace: Workspace;
let server: RunningServer;
let engine: Engine;
let cookie: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rlm-serve-'));
  const renderer = join(dir, 'renderer');
  mkdirSync(join(renderer, 'assets'), { recursive: true });
  writeFileSync(join(renderer, 'index.html'), '<!doctype html><title>RLM Studio</title>');
  writeFileSync(join(renderer, 'assets', 'app.js'), 'console.log(1)');
  writeFileSync(join(renderer, 'assets', 'sample.PDF'), '%PDF-1.4');
  writeFileSync(join(dir, 'secret.txt'), 'host secret');
  workspace = openWorkspace(join(dir, 'ws'));
  server = await startServer({
    host: (engine = composeEngine({ workspace, shell: 'serve' })).host,
    rendererDir: renderer,
  });
  cookie = `rlm_studio_token=${server.token}`;
});
afterAll(async () => {
  await server.close();
  await engine.dispose();
  workspace.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('serve: http access', () => {
  it('prints a 127.0.0.1 URL with a long random token', () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]{43}$/);
  });

  it('refuses a request without the token, or with a wrong one', async () => {
    const none = await get(server.port, '/');
    expect(none.status).toBe(401);
    expect(none.body).toContain('missing access token');
    expect(none.body).not.toContain('RLM Studio</title>');
    expect((await get(server.port, '/assets/app.js')).status).toBe(401);
    expect((await get(server.port, '/?token=wrong')).status).toBe(401);
    expect((await get(server.port, '/', { cookie: 'rlm_studio_token=wrong' })).status).toBe(401);
  });

  it('trades the URL token for an HttpOnly SameSite cookie and serves with it', async () => {
    const first = await get(server.port, `/?token=${server.token}`);
    expect(first.status).toBe(302);
    expect(first.headers.location).toBe('/');
    expect(String(first.headers['set-cookie'])).toMatch(/HttpOnly; SameSite=Strict/);
    const page = await get(server.port, '/', { cookie });
    expect(page.status).toBe(200);
    expect(page.body).toContain('RLM Studio');
    expect(page.headers['content-security-policy']).toContain("default-src 'self'");
    const script = await get(server.port, '/assets/app.js', { cookie });
    expect(script.status).toBe(200);
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
    // The desktop shell's table (content-types.ts), so a PDF is a PDF in both.
    const pdf = await get(server.port, '/assets/sample.PDF', { cookie });
    expect(pdf.headers['content-type']).toBe('application/pdf');
  });

  it('refuses a foreign Origin or Host even with the token (cross-site pages, DNS rebinding)', async () => {
    expect((await get(server.port, '/', { cookie, origin: 'http://evil.example' })).status).toBe(
      403,
    );
    expect((await get(server.port, '/', { cookie, host: 'evil.example' })).status).toBe(403);
    expect(
      (await get(server.port, '/', { cookie, origin: `http://127.0.0.1:${server.port}` })).status,
    ).toBe(200);
  });

  it('never serves a file outside the renderer', async () => {
    expect((await get(server.port, '/../secret.txt', { cookie })).status).toBe(404);
    expect((await get(server.port, '/%2e%2e/secret.txt', { cookie })).status).toBe(404);
    expect(resolveStaticPath('/srv/r', '/../../etc/passwd')).toBe('/srv/r/etc/passwd');
    expect(resolveStaticPath('/srv/r', '/a%00b')).toBeNull();
  });
});

describe('serve: websocket api', () => {
  const apiUrl = () => `ws://127.0.0.1:${server.port}/api`;

  it('refuses a socket without the token', async () => {
    expect(await connect(apiUrl())).toBe(401);
  });

  it('refuses a socket from a foreign origin even with the token', async () => {
    expect(await connect(apiUrl(), { cookie, origin: 'http://evil.example' })).toBe(403);
    expect(
      await connect(`${apiUrl()}?token=${server.token}`, { origin: 'https://attacker.test' }),
    ).toBe(403);
  });

  it('round-trips a command and broadcasts events to every socket', async () => {
    const a = await connect(apiUrl(), { cookie, origin: `http://127.0.0.1:${server.port}` });
    const b = await connect(`${apiUrl()}?token=${server.token}`);
    if (typeof a === 'number' || typeof b === 'number') throw new Error('a socket was refused');
    a.send(
      JSON.stringify({
        kind: 'request',
        id: 1,
        command: 'app.ping',
        payload: { message: 'over ws' },
      }),
    );
    expect(await nextFrame(a)).toMatchObject({
      kind: 'response',
      id: 1,
      ok: true,
      result: { message: 'over ws' },
    });

    const onB = nextFrame(b);
    const replies: unknown[] = [];
    const bothOnA = new Promise<void>((resolve) => {
      a.on('message', (data: Buffer) => {
        replies.push(JSON.parse(data.toString()));
        if (replies.length === 2) resolve();
      });
    });
    a.send(
      JSON.stringify({
        kind: 'request',
        id: 2,
        command: 'settings.update',
        payload: { theme: 'dark' },
      }),
    );
    expect(await onB).toMatchObject({
      kind: 'event',
      event: { kind: 'settings.changed', settings: { theme: 'dark' } },
    });
    await bothOnA;
    expect(replies).toContainEqual(expect.objectContaining({ kind: 'response', id: 2, ok: true }));

    a.send('{ not json');
    const error = (await nextFrame(a)) as ResponseFrame;
    expect(error).toMatchObject({
      kind: 'response',
      ok: false,
      error: { name: 'ApiValidationError' },
    });
    a.close();
    b.close();
  });
});
