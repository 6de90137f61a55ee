// Turns an error from the openai or @anthropic-ai/sdk client into a retry decision or one of our
// named errors. Both SDKs share the same error shapes (APIError with status/headers/body, and
// connection, timeout and user-abort subclasses), so one classifier serves both.
import {
  ModelAuthError,
  ModelBadRequestError,
  ModelNotFoundError,
  ModelRequestError,
} from './errors.ts';
import { redactSecrets } from './redact.ts';
import { parseRetryAfter, type AttemptFailure } from './retry.ts';

interface SdkApiError extends Error {
  readonly status: number | undefined;
  readonly headers: Headers | undefined;
  readonly error: unknown;
}

type ErrorClass<T extends Error = Error> = abstract new (...args: never[]) => T;

/** The error classes of one SDK, passed in so this file depends on neither. */
export interface SdkErrorClasses {
  APIError: ErrorClass<SdkApiError>;
  APIConnectionError: ErrorClass;
  APIConnectionTimeoutError: ErrorClass;
  APIUserAbortError: ErrorClass;
}

export interface FailureContext {
  spec: string;
  model: string;
  baseUrl: string;
  /** Where the key comes from, for the auth error: 'OPENAI_API_KEY or Settings > Models'. */
  keySource: string;
  secrets: readonly string[];
}

/** Wraps an error thrown by the caller's onDelta, so it is passed on untouched, never retried. */
export class CallerCallbackFailure extends Error {
  readonly original: unknown;
  constructor(original: unknown) {
    super('onDelta threw');
    this.original = original;
  }
}

const RETRYABLE_STATUS = new Set([408, 409, 425, 429]);
const RETRYABLE_STREAM_ERROR = /overloaded|rate_limit|api_error|server_error|timeout|unavailable/i;
const NETWORK_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ETIMEDOUT',
  'UND_ERR_SOCKET',
]);

export function classifySdkError(
  error: unknown,
  sdk: SdkErrorClasses,
  context: FailureContext,
): AttemptFailure {
  if (error instanceof CallerCallbackFailure) {
    const original = error.original;
    return {
      kind: 'fatal',
      error: original instanceof Error ? original : new Error(String(original)),
    };
  }
  if (error instanceof sdk.APIConnectionTimeoutError) {
    return { kind: 'retryable', reason: `the SDK timed out reaching ${context.baseUrl}` };
  }
  if (error instanceof sdk.APIUserAbortError) {
    return { kind: 'retryable', reason: 'the request was aborted' };
  }
  if (error instanceof sdk.APIConnectionError) {
    return { kind: 'retryable', reason: connectionReason(error, context) };
  }
  if (error instanceof sdk.APIError) return classifyApiError(error, context);
  if (isNetworkError(error)) {
    // Raised while reading the body: the server was reached, then the connection broke.
    const detail = causeChain(error, context.secrets);
    return { kind: 'retryable', reason: `the connection to ${context.baseUrl} broke (${detail})` };
  }
  return { kind: 'fatal', error: error instanceof Error ? error : new Error(String(error)) };
}

function classifyApiError(error: SdkApiError, context: FailureContext): AttemptFailure {
  const { spec, secrets } = context;
  const message = serverMessage(error, secrets);
  const status = error.status;
  if (status === undefined) {
    // An error event inside an otherwise successful stream.
    if (RETRYABLE_STREAM_ERROR.test(`${errorType(error.error)} ${message}`)) {
      return { kind: 'retryable', reason: `error in the stream: ${message}` };
    }
    return { kind: 'fatal', error: new ModelRequestError(spec, undefined, message, secrets) };
  }
  if (status === 401 || status === 403) {
    return {
      kind: 'fatal',
      error: new ModelAuthError(spec, status, context.keySource, message, secrets),
    };
  }
  if (status === 404) {
    return { kind: 'fatal', error: new ModelNotFoundError(spec, context.model, message, secrets) };
  }
  if (status === 400 || status === 413 || status === 422) {
    return { kind: 'fatal', error: new ModelBadRequestError(spec, status, message, secrets) };
  }
  if (RETRYABLE_STATUS.has(status) || status >= 500) {
    return {
      kind: 'retryable',
      reason: `HTTP ${status}: ${message}`,
      retryAfterMs: parseRetryAfter(error.headers),
    };
  }
  return { kind: 'fatal', error: new ModelRequestError(spec, status, message, secrets) };
}

/** The server's own words: `{error: {message}}` (OpenAI) or `{type, error: {message}}` (Anthropic). */
function serverMessage(error: SdkApiError, secrets: readonly string[]): string {
  const body = error.error;
  const found = messageIn(body) ?? messageIn(field(body, 'error'));
  const text = found ?? error.message.replace(/^\d{3}\s+/, '');
  return redactSecrets(text.length > 500 ? `${text.slice(0, 500)}...` : text, secrets);
}

function messageIn(value: unknown): string | undefined {
  const message = field(value, 'message');
  return typeof message === 'string' && message.trim() !== '' ? message : undefined;
}

function errorType(body: unknown): string {
  const type = field(body, 'type') ?? field(field(body, 'error'), 'type');
  return typeof type === 'string' ? type : '';
}

function field(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null && key in value
    ? (value as Record<string, unknown>)[key]
    : undefined;
}

function connectionReason(error: Error, context: FailureContext): string {
  const detail = causeChain(error, context.secrets);
  return `could not reach ${context.baseUrl} (${detail}); is the server running?`;
}

/** 'fetch failed: connect ECONNREFUSED 127.0.0.1:8000', from an error and its causes. */
function causeChain(error: Error, secrets: readonly string[]): string {
  const causes: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current instanceof Error && depth < 4; depth++) {
    const message = current.message.replace(/\.$/, '');
    if (message !== '') causes.push(message);
    current = current.cause;
  }
  return redactSecrets(causes.join(': '), secrets);
}

function isNetworkError(error: unknown): error is Error {
  if (!(error instanceof Error)) return false;
  if (error.name === 'TypeError' && /terminated|fetch failed|socket/i.test(error.message)) {
    return true;
  }
  const code = field(error, 'code') ?? field(error.cause, 'code');
  return typeof code === 'string' && NETWORK_CODES.has(code);
}
