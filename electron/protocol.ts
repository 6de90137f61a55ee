// The privileged app:// protocol that serves the built renderer (dist/renderer) with the app's
// Content-Security-Policy. Invariant: no request resolves to a file outside the renderer folder.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { extname, isAbsolute, join, relative, resolve, sep } from 'node:path';
// Deep imports on purpose: host/serve/index.ts also pulls the HTTP/WebSocket server (ws) into main.
import { contentTypeOf } from '../host/serve/content-types.ts';
import { contentSecurityPolicy } from '../host/serve/csp.ts';
import { appOrigin, appScheme, isAppUrl } from './origin.ts';

/** Registered before `app.ready`: standard + secure make app:// behave like https for the page. */
export const appSchemePrivileges = {
  scheme: appScheme,
  privileges: {
    standard: true,
    secure: true,
    supportFetchAPI: true,
    codeCache: true,
    allowServiceWorkers: false,
    bypassCSP: false,
  },
} as const;

/** The shell was started before the renderer was built. */
export class RendererNotBuiltError extends Error {
  override readonly name = 'RendererNotBuiltError';
  constructor(rendererDir: string) {
    super(
      `The renderer is not built (no index.html in '${rendererDir}'); run \`npm run build\` and start again`,
    );
  }
}

export function assertRendererBuilt(rendererDir: string): void {
  if (!existsSync(resolve(rendererDir, 'index.html'))) throw new RendererNotBuiltError(rendererDir);
}

export type AppRequestResolution =
  { kind: 'file'; path: string } | { kind: 'refused'; status: 400 | 403 | 404; reason: string };

/**
 * Maps a request URL to a file under `rendererDir`. A path without an extension is a client-side
 * route and gets index.html; anything that would leave the folder is refused with 403.
 */
export function resolveAppRequest(rendererDir: string, requestUrl: string): AppRequestResolution {
  const url = URL.parse(requestUrl);
  if (url === null || !isAppUrl(url)) {
    return { kind: 'refused', status: 404, reason: `not an ${appOrigin} URL` };
  }
  let pathname: string;
  try {
    pathname = decodeURIComponent(url.pathname);
  } catch {
    return { kind: 'refused', status: 400, reason: 'malformed percent-encoding in the path' };
  }
  if (pathname.includes('\0')) {
    return { kind: 'refused', status: 400, reason: 'a NUL byte in the path' };
  }
  const root = resolve(rendererDir);
  const requested = resolve(root, `.${pathname}`);
  const inside = relative(root, requested);
  if (inside === '..' || inside.startsWith(`..${sep}`) || isAbsolute(inside)) {
    return { kind: 'refused', status: 403, reason: 'the path leaves the renderer folder' };
  }
  const path = inside === '' || extname(inside) === '' ? join(root, 'index.html') : requested;
  return { kind: 'file', path };
}

/** Headers on every app:// response, refusals included. */
export function appResponseHeaders(contentType: string): Record<string, string> {
  return {
    'Content-Type': contentType,
    'Content-Security-Policy': contentSecurityPolicy(),
    'X-Content-Type-Options': 'nosniff',
    'Cache-Control': 'no-cache',
  };
}

export type ReadAppFile = (path: string) => Promise<Uint8Array>;

/** The handler given to `protocol.handle('app', ...)`; plain fetch types, so Node tests call it. */
export function createAppProtocolHandler(
  rendererDir: string,
  read: ReadAppFile = readFile,
): (request: { url: string }) => Promise<Response> {
  return async (request) => {
    const resolution = resolveAppRequest(rendererDir, request.url);
    if (resolution.kind === 'refused') {
      return refusal(resolution.status, resolution.reason);
    }
    let body: Uint8Array;
    try {
      body = await read(resolution.path);
    } catch (error) {
      if (isMissingFile(error)) return refusal(404, `no file '${new URL(request.url).pathname}'`);
      throw error;
    }
    return new Response(body, {
      status: 200,
      headers: appResponseHeaders(contentTypeOf(resolution.path)),
    });
  };
}

function refusal(status: number, reason: string): Response {
  return new Response(`${status}: ${reason}`, {
    status,
    headers: appResponseHeaders('text/plain; charset=utf-8'),
  });
}

function isMissingFile(error: unknown): boolean {
  return (
    error instanceof Error &&
    'code' in error &&
    (error.code === 'ENOENT' || error.code === 'EISDIR')
  );
}
