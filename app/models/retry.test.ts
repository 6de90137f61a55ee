// Backoff arithmetic, Retry-After parsing, redaction and prices: the small pure pieces.
import { describe, expect, it } from 'vitest';
import { ModelAuthError } from './errors.ts';
import { costOf, KNOWN_MODEL_PRICES, priceOf } from './pricing.ts';
import { redactSecrets } from './redact.ts';
import { DEFAULT_RETRY_POLICY, parseRetryAfter, retryDelayMs } from './retry.ts';

describe('retryDelayMs', () => {
  it('doubles up to the cap, with jitter in the upper half', () => {
    const policy = { ...DEFAULT_RETRY_POLICY, baseDelayMs: 100, maxDelayMs: 1000 };
    expect(retryDelayMs(policy, 0, undefined, () => 0)).toBe(50);
    expect(retryDelayMs(policy, 0, undefined, () => 1)).toBe(100);
    expect(retryDelayMs(policy, 3, undefined, () => 1)).toBe(800);
    expect(retryDelayMs(policy, 9, undefined, () => 1)).toBe(1000);
  });

  it('uses Retry-After as given, up to maxRetryAfterMs', () => {
    const policy = { ...DEFAULT_RETRY_POLICY, maxRetryAfterMs: 5000 };
    expect(retryDelayMs(policy, 0, 2000)).toBe(2000);
    expect(retryDelayMs(policy, 0, 60_000)).toBe(5000);
  });
});

describe('parseRetryAfter', () => {
  it('reads seconds, milliseconds and HTTP dates', () => {
    expect(parseRetryAfter(new Headers({ 'retry-after': '3' }))).toBe(3000);
    expect(parseRetryAfter(new Headers({ 'retry-after-ms': '250', 'retry-after': '9' }))).toBe(250);
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(
      parseRetryAfter(new Headers({ 'retry-after': 'Wed, 01 Jan 2025 00:00:10 GMT' }), now),
    ).toBe(10_000);
    expect(parseRetryAfter(new Headers({ 'retry-after': 'soon' }))).toBeUndefined();
    expect(parseRetryAfter(undefined)).toBeUndefined();
  });
});

describe('redactSecrets', () => {
  it('masks named secrets and key-shaped text, and leaves the rest', () => {
    expect(redactSecrets('key abcd-1234 failed', ['abcd-1234'])).toBe('key [redacted] failed');
    expect(redactSecrets('got sk-proj-AAAAAAAAAAAAAAAAAAAA here')).toBe('got [redacted] here');
    expect(redactSecrets('Authorization: Bearer abcdefghijklmnop')).toBe(
      'Authorization: Bearer [redacted]',
    );
    expect(redactSecrets('at http://me:pw1234@host/v1')).toBe('at http://[redacted]@host/v1');
    expect(redactSecrets('short a', ['a', ''])).toBe('short a');
  });

  it('is applied to every model error message', () => {
    const error = new ModelAuthError('openai:x', 401, 'OPENAI_API_KEY', 'bad key my-secret-value', [
      'my-secret-value',
    ]);
    expect(error.message).not.toContain('my-secret-value');
    expect(error.name).toBe('ModelAuthError');
  });
});

describe('prices', () => {
  it('knows dated snapshots of listed models and nothing else', () => {
    expect(priceOf('gpt-4o-mini-2024-07-18')).toEqual(KNOWN_MODEL_PRICES['gpt-4o-mini']);
    expect(priceOf('claude-sonnet-4-20250514')).toEqual(KNOWN_MODEL_PRICES['claude-sonnet-4']);
    expect(priceOf('gpt-4o-mini-realtime')).toBeNull();
    expect(priceOf('llama3.2')).toBeNull();
    expect(
      costOf('gpt-4o', { inputTokens: 1_000_000, outputTokens: 1_000_000 }, KNOWN_MODEL_PRICES),
    ).toBe(12.5);
    expect(costOf('gpt-4o', { inputTokens: 1, outputTokens: 1 }, null)).toBeNull();
  });
});
