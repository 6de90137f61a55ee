// Keeps API keys out of text that leaves a provider (error messages, logs, events, exports).
// Every message built in app/models passes through redactSecrets before it is thrown.

export const REDACTED = '[redacted]';

/** Shapes of secrets caught even when the caller did not name them: [pattern, replacement]. */
const SECRET_SHAPES: readonly (readonly [RegExp, string])[] = [
  [/\bsk-[A-Za-z0-9_-]{16,}/g, REDACTED], // OpenAI and Anthropic (sk-ant-...) keys
  [/\b(Bearer)\s+[A-Za-z0-9._~+/=-]{12,}/gi, `$1 ${REDACTED}`], // an Authorization header
  [/\b([a-z][a-z0-9+.-]*:\/\/)[^\s/@:]+:[^\s/@]+@/gi, `$1${REDACTED}@`], // user:password@ in a URL
];

/**
 * Replaces every occurrence of each secret (and anything shaped like a vendor API key or URL
 * credentials) with `[redacted]`. Empty or very short secrets are ignored: masking "a" would
 * mangle the text without protecting anything.
 */
export function redactSecrets(text: string, secrets: readonly (string | undefined)[] = []): string {
  let result = text;
  const named = secrets
    .filter((secret): secret is string => secret !== undefined && secret.length >= 4)
    .sort((a, b) => b.length - a.length);
  for (const secret of named) result = result.split(secret).join(REDACTED);
  for (const [shape, replacement] of SECRET_SHAPES) result = result.replace(shape, replacement);
  return result;
}
