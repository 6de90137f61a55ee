// The app's own origin: the renderer is served from app://rlm-studio/ by a privileged protocol.
// Only pages on this origin may talk to the engine or be navigated to.
export const appScheme = 'app';
export const appHost = 'rlm-studio';
export const appOrigin = `${appScheme}://${appHost}`;
export const appEntryUrl = `${appOrigin}/index.html`;

/**
 * Whether `url` is a page of the app itself. Compares scheme and host rather than `URL.origin`,
 * because Node's URL reports the origin of a non-special scheme such as app: as 'null' (and keeps
 * its host's case, which Chromium lowercases for a standard scheme).
 */
export function isAppUrl(url: string | URL): boolean {
  const parsed = typeof url === 'string' ? URL.parse(url) : url;
  return parsed?.protocol === `${appScheme}:` && parsed.host.toLowerCase() === appHost;
}
