// Serve mode's access rules, seen from a real browser: a command round-trips over the WebSocket
// for the page the server served; without the token, or from another origin, nothing works.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  launchBrowser,
  screenshot,
  serveApp,
  type BrowserSession,
  type ServedApp,
} from './harness.ts';

let app: ServedApp;
let session: BrowserSession;
let evil: Server;
let evilOrigin: string;

beforeAll(async () => {
  app = await serveApp();
  session = await launchBrowser();
  // Another local origin (same host, other port: the same *site*, so the cookie rides along).
  evil = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html' });
    response.end('<!doctype html><title>evil</title><p>attacker page</p>');
  });
  await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve));
  evilOrigin = `http://127.0.0.1:${String((evil.address() as AddressInfo).port)}`;
});
afterAll(async () => {
  await session.close();
  await app.stop();
  await new Promise((resolve) => evil.close(resolve));
});

/** Runs inside the page: opens a WebSocket, sends one frame, resolves with what happened. */
function probeSocket(url: string): Promise<string> {
  return new Promise<string>((resolve) => {
    const ws = new WebSocket(url);
    ws.onopen = () => {
      ws.send(
        JSON.stringify({
          kind: 'request',
          id: 1,
          command: 'app.ping',
          payload: { message: 'from the page' },
        }),
      );
    };
    ws.onmessage = (event) => {
      resolve(`message:${String(event.data)}`);
      ws.close();
    };
    ws.onerror = () => {
      resolve('error');
    };
    ws.onclose = (event) => {
      resolve(`closed:${String(event.code)}`);
    };
  });
}

describe('serve access from a browser', () => {
  it('round-trips a command over the WebSocket for the page it served', async () => {
    const page = await session.context.newPage();
    await page.goto(app.url);
    await page.getByTestId('view-papers').waitFor();
    const apiUrl = app.origin.replace('http', 'ws') + '/api';
    const result = await page.evaluate(probeSocket, apiUrl);
    expect(result).toMatch(/^message:/);
    const frame = JSON.parse(result.slice('message:'.length)) as unknown;
    expect(frame).toMatchObject({
      kind: 'response',
      id: 1,
      ok: true,
      result: { message: 'from the page' },
    });
    await page.close();
  });

  it('refuses a page load without the token', async () => {
    const fresh = await launchBrowser();
    const page = await fresh.context.newPage();
    const response = await page.goto(app.origin + '/');
    expect(response?.status()).toBe(401);
    expect(await page.textContent('body')).toContain('access token');
    await screenshot(page, 'refused-without-token');
    const apiUrl = app.origin.replace('http', 'ws') + '/api';
    const result = await page.evaluate(probeSocket, apiUrl);
    expect(result).not.toMatch(/^message:/);
    await fresh.close();
  });

  it('refuses another origin even though the browser holds the cookie', async () => {
    const page = await session.context.newPage();
    await page.goto(evilOrigin + '/');
    const apiUrl = app.origin.replace('http', 'ws') + '/api';
    const result = await page.evaluate(probeSocket, apiUrl);
    expect(result).not.toMatch(/^message:/);
    const status = await page.evaluate(async (target) => {
      try {
        const response = await fetch(target, { credentials: 'include' });
        return `status:${String(response.status)}`;
      } catch {
        return 'blocked';
      }
    }, app.origin + '/');
    expect(status).not.toBe('status:200');
    await page.close();
  });
});
