// Who may talk to `rlm-studio serve`: only a page this server served, in the user's own browser.
// Every request carries the per-start token (query or cookie), names this server as its Host (no
// DNS rebinding) and, when it has an Origin, names this server's origin (no cross-site pages).
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export const tokenCookie = 'rlm_studio_token';

export function newAccessToken(): string {
  return randomBytes(32).toString('base64url');
}

export type AccessDecision =
  | { kind: 'allow'; via: 'query' | 'cookie' }
  | { kind: 'refuse'; status: 401 | 403; reason: string };

export interface AccessPolicy {
  token: string;
  port: number;
}

function allowedHosts(port: number): Set<string> {
  return new Set([`127.0.0.1:${port}`, `localhost:${port}`]);
}

export function allowedOrigins(port: number): Set<string> {
  return new Set([`http://127.0.0.1:${port}`, `http://localhost:${port}`]);
}

function sameToken(presented: string, token: string): boolean {
  const a = Buffer.from(presented);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) return decodeURIComponent(part.slice(eq + 1).trim());
  }
  return undefined;
}

export function decideAccess(request: IncomingMessage, policy: AccessPolicy): AccessDecision {
  const host = request.headers.host;
  if (!host || !allowedHosts(policy.port).has(host.toLowerCase())) {
    return { kind: 'refuse', status: 403, reason: `Host '${host ?? ''}' is not this server` };
  }
  const origin = request.headers.origin;
  if (origin !== undefined && !allowedOrigins(policy.port).has(origin.toLowerCase())) {
    return { kind: 'refuse', status: 403, reason: `Origin '${origin}' may not use this server` };
  }
  const url = new URL(request.url ?? '/', 'http://127.0.0.1');
  const queryToken = url.searchParams.get('token');
  if (queryToken !== null) {
    return sameToken(queryToken, policy.token)
      ? { kind: 'allow', via: 'query' }
      : { kind: 'refuse', status: 401, reason: 'wrong access token' };
  }
  const cookieToken = readCookie(request.headers.cookie, tokenCookie);
  if (cookieToken !== undefined && sameToken(cookieToken, policy.token)) {
    return { kind: 'allow', via: 'cookie' };
  }
  return { kind: 'refuse', status: 401, reason: 'missing access token' };
}
