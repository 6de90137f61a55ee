// The Content-Security-Policy of the renderer, shared by serve mode (an HTTP header) and the
// desktop shell (a header on its app:// protocol). Nothing loads from outside the app itself.
export interface CspOptions {
  /** Extra origins the page may connect to (serve mode: its own ws:// origin). */
  connect?: readonly string[];
}

export function contentSecurityPolicy(options: CspOptions = {}): string {
  const connect = ["'self'", ...(options.connect ?? [])].join(' ');
  return [
    "default-src 'self'",
    "script-src 'self' 'wasm-unsafe-eval'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    `connect-src ${connect}`,
    "worker-src 'self' blob:",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}
