// Runs one model call as a series of attempts: a per-attempt timeout, exponential backoff with
// jitter (or the server's Retry-After), and cancellation that rejects at once and aborts the HTTP
// request. Once text has streamed to the caller an attempt is never repeated (it would repeat text).
import {
  ModelCallCanceledError,
  ModelRetriesExhaustedError,
  ModelStreamInterruptedError,
  ModelTimeoutError,
} from './errors.ts';

export interface RetryPolicy {
  /** Attempts after the first one. */
  maxRetries: number;
  /** Delay before the first retry; doubles with each retry, up to maxDelayMs. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** A server's Retry-After longer than this is cut to it, so one header cannot stall a run. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxRetries: 4,
  baseDelayMs: 500,
  maxDelayMs: 8_000,
  maxRetryAfterMs: 60_000,
};

/** Per-attempt limit, covering the whole streamed response. */
export const DEFAULT_TIMEOUT_MS = 300_000;

/** What a provider makes of an error thrown by one attempt. */
export type AttemptFailure =
  | { kind: 'retryable'; reason: string; retryAfterMs?: number | undefined }
  | { kind: 'fatal'; error: Error };

export interface CallSettings {
  spec: string;
  secrets: readonly string[];
  signal?: AbortSignal | undefined;
  timeoutMs: number;
  policy: RetryPolicy;
  classify: (error: unknown) => AttemptFailure;
  random?: () => number;
}

/** Set by an attempt once it has handed text to the caller. */
export interface AttemptProgress {
  streamed: boolean;
}

export async function callWithRetries<T>(
  settings: CallSettings,
  attempt: (signal: AbortSignal, progress: AttemptProgress) => Promise<T>,
): Promise<T> {
  const { spec, secrets, signal, policy } = settings;
  for (let attemptIndex = 0; ; attemptIndex++) {
    if (signal?.aborted) throw new ModelCallCanceledError(spec);
    const progress: AttemptProgress = { streamed: false };
    const outcome = await runAttempt(settings, (attemptSignal) => attempt(attemptSignal, progress));
    if (outcome.ok) return outcome.value;
    const failure = outcome.failure;
    if (failure.kind === 'fatal') throw failure.error;
    if (progress.streamed) {
      if (outcome.timedOut) throw new ModelTimeoutError(spec, settings.timeoutMs);
      throw new ModelStreamInterruptedError(spec, failure.reason, secrets);
    }
    if (attemptIndex >= policy.maxRetries) {
      throw new ModelRetriesExhaustedError(spec, attemptIndex + 1, failure.reason, secrets);
    }
    const delay = retryDelayMs(policy, attemptIndex, failure.retryAfterMs, settings.random);
    await abortableSleep(delay, signal, spec);
  }
}

type AttemptOutcome<T> =
  { ok: true; value: T } | { ok: false; failure: AttemptFailure; timedOut: boolean };

async function runAttempt<T>(
  settings: CallSettings,
  attempt: (signal: AbortSignal) => Promise<T>,
): Promise<AttemptOutcome<T>> {
  const { signal, spec, timeoutMs } = settings;
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new ModelTimeoutError(spec, timeoutMs));
  }, timeoutMs);
  const onCancel = (): void => {
    controller.abort(new ModelCallCanceledError(spec));
  };
  signal?.addEventListener('abort', onCancel, { once: true });
  try {
    const value = await raceAbort(attempt(controller.signal), controller.signal);
    // An SDK may end a stream quietly when its request is aborted; a quiet end is not an answer.
    if (!controller.signal.aborted) return { ok: true, value };
    return abortedOutcome(signal, timedOut, spec, timeoutMs);
  } catch (error) {
    if (controller.signal.aborted) return abortedOutcome(signal, timedOut, spec, timeoutMs);
    return { ok: false, failure: settings.classify(error), timedOut };
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onCancel);
  }
}

function abortedOutcome(
  signal: AbortSignal | undefined,
  timedOut: boolean,
  spec: string,
  timeoutMs: number,
): AttemptOutcome<never> {
  if (signal?.aborted || !timedOut) throw new ModelCallCanceledError(spec);
  const reason = `no complete answer within the ${timeoutMs} ms timeout`;
  return { ok: false, failure: { kind: 'retryable', reason }, timedOut };
}

/** Rejects as soon as the signal aborts, whether or not the work notices. */
function raceAbort<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => {
      const reason: unknown = signal.reason;
      reject(reason instanceof Error ? reason : new Error('aborted'));
    };
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

export function retryDelayMs(
  policy: RetryPolicy,
  retryIndex: number,
  retryAfterMs: number | undefined,
  random: () => number = Math.random,
): number {
  if (retryAfterMs !== undefined)
    return Math.min(Math.max(0, retryAfterMs), policy.maxRetryAfterMs);
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retryIndex);
  // Half fixed, half random: spreads out agents that failed together without ever retrying at once.
  return ceiling / 2 + (random() * ceiling) / 2;
}

/** Reads `retry-after-ms` (milliseconds) or `retry-after` (seconds or an HTTP date). */
export function parseRetryAfter(
  headers: Headers | undefined,
  now: number = Date.now(),
): number | undefined {
  if (!headers) return undefined;
  const millis = Number.parseFloat(headers.get('retry-after-ms') ?? '');
  if (Number.isFinite(millis) && millis >= 0) return millis;
  const value = headers.get('retry-after');
  if (value === null || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Waits `ms`, or rejects with ModelCallCanceledError as soon as the signal aborts. */
export function abortableSleep(
  ms: number,
  signal: AbortSignal | undefined,
  spec: string,
): Promise<void> {
  if (signal?.aborted) return Promise.reject(new ModelCallCanceledError(spec));
  return new Promise<void>((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new ModelCallCanceledError(spec));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
