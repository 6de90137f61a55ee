// What the two HTTP providers (OpenAI-compatible, Anthropic) share: their options, a call with
// retry.ts's retries made into a Completion, and handing streamed text to the caller so that an
// exception in the caller's onDelta is never retried.
import { costOf, estimateUsage, type PriceTable } from './pricing.ts';
import type { Completion, CompletionRequest, TokenUsage } from './provider.ts';
import { CallerCallbackFailure, classifySdkError, type SdkErrorClasses } from './sdk-failure.ts';
import {
  callWithRetries,
  DEFAULT_RETRY_POLICY,
  DEFAULT_TIMEOUT_MS,
  type AttemptProgress,
  type RetryPolicy,
} from './retry.ts';

export interface HttpProviderOptions {
  model: string;
  /** Up to the API root, e.g. 'http://127.0.0.1:8000/v1' or 'https://api.anthropic.com'. */
  baseUrl: string;
  apiKey?: string | undefined;
  /** The spec shown in errors and recorded in runs; built from model and baseUrl when absent. */
  spec?: string | undefined;
  /** Where the key comes from, named by an auth error: 'OPENAI_API_KEY or Settings > Models'. */
  keySource?: string | undefined;
  /** Prices for cost per call; null (the default for self-hosted servers) reports no cost. */
  prices?: PriceTable | null | undefined;
  retry?: Partial<RetryPolicy> | undefined;
  /** Per attempt, covering the whole streamed answer. */
  timeoutMs?: number | undefined;
  /** Injected for tests of the backoff; Math.random otherwise. */
  random?: (() => number) | undefined;
}

export interface ResolvedHttpOptions {
  model: string;
  baseUrl: string;
  apiKey: string | undefined;
  spec: string;
  keySource: string;
  prices: PriceTable | null;
  policy: RetryPolicy;
  timeoutMs: number;
  random: () => number;
}

export function resolveHttpOptions(
  options: HttpProviderOptions,
  defaults: { spec: string; keySource: string },
): ResolvedHttpOptions {
  return {
    model: options.model,
    baseUrl: options.baseUrl,
    apiKey: options.apiKey,
    spec: options.spec ?? defaults.spec,
    keySource: options.keySource ?? defaults.keySource,
    prices: options.prices ?? null,
    policy: { ...DEFAULT_RETRY_POLICY, ...options.retry },
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    random: options.random ?? Math.random,
  };
}

/** Passes one piece of streamed text to the caller and marks the attempt as no longer repeatable. */
export function deliverDelta(
  request: CompletionRequest,
  text: string,
  progress: AttemptProgress,
): void {
  if (text === '' || !request.onDelta) return;
  // Without a listener nothing was shown yet, so a broken stream may still be retried.
  progress.streamed = true;
  try {
    request.onDelta(text);
  } catch (error) {
    throw new CallerCallbackFailure(error);
  }
}

/** What one attempt read from a stream; usage stays undefined when the server sent none. */
export interface StreamedAnswer {
  text: string;
  usage: TokenUsage | undefined;
  model: string | undefined;
  finishReason: Completion['finishReason'];
}

/**
 * One completion: `attempt` streams an answer, retried by retry.ts (failures classified through the
 * transport's error classes, secrets redacted); usage is estimated when the server sent none.
 */
export async function completeWithRetries(
  options: ResolvedHttpOptions,
  errors: SdkErrorClasses,
  request: CompletionRequest,
  attempt: (signal: AbortSignal, progress: AttemptProgress) => Promise<StreamedAnswer>,
): Promise<Completion> {
  const started = performance.now();
  const { spec, model, baseUrl, keySource, apiKey, policy, timeoutMs, random } = options;
  const secrets = apiKey === undefined ? [] : [apiKey];
  const answer = await callWithRetries(
    {
      spec,
      secrets,
      signal: request.signal,
      timeoutMs,
      policy,
      random,
      classify: (error) =>
        classifySdkError(error, errors, { spec, model, baseUrl, keySource, secrets }),
    },
    attempt,
  );
  const usage = answer.usage ?? estimateUsage(request.messages, answer.text);
  return {
    text: answer.text,
    usage,
    costUsd: costOf(model, usage, options.prices),
    model: answer.model ?? model,
    finishReason: answer.finishReason,
    latencyMs: performance.now() - started,
  };
}
