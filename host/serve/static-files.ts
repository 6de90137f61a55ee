// Serves the built renderer from one directory; nothing outside it is reachable.
import { createReadStream, statSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { join, normalize, resolve, sep } from 'node:path';
import { contentTypeOf } from './content-types.ts';

/** Maps a URL path to a file under `root`, or null when it would leave `root`. */
export function resolveStaticPath(root: string, urlPath: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  if (decoded.includes('\0')) return null;
  const relative = normalize(decoded === '/' ? '/index.html' : decoded).replace(/^([/\\])+/, '');
  const absoluteRoot = resolve(root);
  const target = resolve(join(absoluteRoot, relative));
  if (target !== absoluteRoot && !target.startsWith(absoluteRoot + sep)) return null;
  return target;
}

export function sendStaticFile(
  root: string,
  urlPath: string,
  response: ServerResponse,
  headers: Record<string, string>,
): void {
  const target = resolveStaticPath(root, urlPath);
  const stats = target === null ? undefined : statSync(target, { throwIfNoEntry: false });
  if (target === null || !stats?.isFile()) {
    response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8', ...headers });
    response.end(`Not found: ${urlPath}`);
    return;
  }
  response.writeHead(200, {
    'content-type': contentTypeOf(target),
    'content-length': String(stats.size),
    'cache-control': urlPath.startsWith('/assets/')
      ? 'private, max-age=31536000, immutable'
      : 'no-cache',
    ...headers,
  });
  createReadStream(target).pipe(response);
}
