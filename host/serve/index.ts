// app/serve: the renderer and app/api over HTTP + WebSocket on 127.0.0.1, token-protected.
export {
  startServer,
  defaultRendererDir,
  apiPath,
  type ServeOptions,
  type RunningServer,
} from './server.ts';
export {
  decideAccess,
  newAccessToken,
  tokenCookie,
  allowedOrigins,
  type AccessDecision,
} from './auth.ts';
export { contentSecurityPolicy, type CspOptions } from './csp.ts';
export { resolveStaticPath } from './static-files.ts';
