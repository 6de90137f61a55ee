// `rlm-studio serve`: the renderer over HTTP and app/api over a WebSocket, on 127.0.0.1 only.
// Access needs the per-start token; the first visit trades it for an HttpOnly SameSite cookie.
import { existsSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { HostFrame } from '../../app/api/index.ts';
import type { Host } from '../index.ts';
import { decideAccess, newAccessToken, tokenCookie, type AccessPolicy } from './auth.ts';
import { contentSecurityPolicy } from './csp.ts';
import { sendStaticFile } from './static-files.ts';

export const apiPath = '/api';
const maxFrameBytes = 16 * 1024 * 1024;

export interface ServeOptions {
  host: Host;
  /** The built renderer (dist/renderer). */
  rendererDir: string;
  /** 0 picks a free port. */
  port?: number;
  /** Fixed token for tests; a fresh random one otherwise. */
  token?: string;
}

export interface RunningServer {
  url: string;
  port: number;
  token: string;
  /** Open WebSocket connections right now. */
  connections(): number;
  close(): Promise<void>;
}

function securityHeaders(port: number): Record<string, string> {
  return {
    'content-security-policy': contentSecurityPolicy({
      connect: [`ws://127.0.0.1:${port}`, `ws://localhost:${port}`],
    }),
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
    'cross-origin-opener-policy': 'same-origin',
    'cross-origin-resource-policy': 'same-origin',
  };
}

function refuse(
  response: ServerResponse,
  status: number,
  reason: string,
  headers: Record<string, string>,
) {
  response.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', ...headers });
  response.end(
    `RLM Studio refused this request: ${reason}.\n` +
      'Open the exact URL that `rlm-studio serve` printed (it carries a per-start access token).\n',
  );
}

export async function startServer(options: ServeOptions): Promise<RunningServer> {
  const token = options.token ?? newAccessToken();
  const sockets = new Set<WebSocket>();
  const wss = new WebSocketServer({ noServer: true, maxPayload: maxFrameBytes });
  const policy: AccessPolicy = { token, port: 0 };
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    answerHttp(request, response, policy, options.rendererDir);
  });
  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const decision = decideAccess(request, policy);
    const path = new URL(request.url ?? '/', 'http://127.0.0.1').pathname;
    if (decision.kind === 'refuse' || path !== apiPath) {
      const status = decision.kind === 'refuse' ? decision.status : 404;
      socket.end(
        `HTTP/1.1 ${status} ${status === 404 ? 'Not Found' : 'Refused'}\r\nconnection: close\r\n\r\n`,
      );
      return;
    }
    wss.handleUpgrade(request, socket, head, (ws) => {
      sockets.add(ws);
      ws.on('close', () => sockets.delete(ws));
      attachSocket(ws, options.host);
    });
  });
  await new Promise<void>((resolvePromise, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolvePromise();
    });
  });
  policy.port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${policy.port}/?token=${token}`,
    port: policy.port,
    token,
    connections: () => sockets.size,
    close: async () => {
      for (const ws of sockets) ws.terminate();
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((resolvePromise) =>
        server.close(() => {
          resolvePromise();
        }),
      );
    },
  };
}

/** A plain HTTP request: refused, the token traded for its cookie, or a renderer file. */
function answerHttp(
  request: IncomingMessage,
  response: ServerResponse,
  policy: AccessPolicy,
  rendererDir: string,
): void {
  const headers = securityHeaders(policy.port);
  const decision = decideAccess(request, policy);
  if (decision.kind === 'refuse') {
    refuse(response, decision.status, decision.reason, headers);
    return;
  }
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    refuse(response, 405, `method ${request.method ?? ''} is not served`, headers);
    return;
  }
  const url = new URL(request.url ?? '/', 'http://127.0.0.1');
  if (decision.via === 'query') {
    url.searchParams.delete('token');
    response.writeHead(302, {
      location: url.pathname + url.search,
      'set-cookie': `${tokenCookie}=${encodeURIComponent(policy.token)}; HttpOnly; SameSite=Strict; Path=/`,
      ...headers,
    });
    response.end();
    return;
  }
  if (!existsSync(join(rendererDir, 'index.html'))) {
    const reason = `the renderer is not built in ${rendererDir}; run \`npm run build\``;
    refuse(response, 503, reason, headers);
    return;
  }
  sendStaticFile(rendererDir, url.pathname, response, headers);
}

/** An accepted WebSocket: every engine event goes out, every frame in is answered as text. */
function attachSocket(ws: WebSocket, host: ServeOptions['host']): void {
  const sendText = (text: string) => {
    if (ws.readyState === ws.OPEN) ws.send(text);
  };
  const unsubscribe = host.onEvent((event) => {
    sendText(JSON.stringify({ kind: 'event', event } satisfies HostFrame));
  });
  ws.on('message', (data: Buffer, isBinary) => {
    let frame: unknown;
    try {
      frame = isBinary ? undefined : (JSON.parse(data.toString('utf8')) as unknown);
    } catch {
      frame = undefined;
    }
    // As text: a stored run's log goes out as stored (Host.handleText).
    void host.handleText(frame).then(sendText);
  });
  ws.on('close', () => {
    unsubscribe();
  });
  ws.on('error', () => {
    ws.terminate();
  });
}

export function defaultRendererDir(): string {
  return new URL('../../dist/renderer', import.meta.url).pathname;
}
