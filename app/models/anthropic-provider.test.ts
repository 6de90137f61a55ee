// AnthropicProvider against a local fake server speaking Anthropic's SSE event format.
import { afterEach, describe, expect, it } from 'vitest';
import {
  AnthropicProvider,
  toAnthropicMessages,
  type AnthropicOptions,
} from './anthropic-provider.ts';
import { ModelAuthError, ModelCallCanceledError, ModelRetriesExhaustedError } from './errors.ts';
import {
  anthropicEvent,
  anthropicStart,
  anthropicText,
  sendAnthropicStream,
  sendJson,
  startFakeServer,
  startSse,
  type FakeHandler,
  type FakeServer,
} from './fake-servers.test-support.ts';
import { KNOWN_MODEL_PRICES } from './pricing.ts';
import type { CompletionRequest } from './provider.ts';

const KEY = 'sk-ant-test-0123456789abcdefSECRET';
let server: FakeServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function providerFor(
  handler: FakeHandler,
  options: Partial<AnthropicOptions> = {},
): Promise<{ provider: AnthropicProvider; server: FakeServer }> {
  server = await startFakeServer(handler);
  const provider = new AnthropicProvider({
    model: 'claude-sonnet-4-5',
    baseUrl: server.origin,
    apiKey: KEY,
    prices: KNOWN_MODEL_PRICES,
    retry: { maxRetries: 3, baseDelayMs: 1, maxDelayMs: 5 },
    ...options,
  });
  return { provider, server };
}

const anthropicError = (type: string, message: string): unknown => ({
  type: 'error',
  error: { type, message },
});

const request = (extra: Partial<CompletionRequest> = {}): CompletionRequest => ({
  messages: [
    { role: 'system', content: 'You are terse.' },
    { role: 'user', content: 'Say hello.' },
  ],
  agentId: '0.1',
  turn: 2,
  ...extra,
});

describe('AnthropicProvider', () => {
  it('streams text deltas, reads usage from message_start/message_delta and prices the call', async () => {
    const { provider, server } = await providerFor((_req, res) => {
      sendAnthropicStream(res, ['Hel', 'lo'], { input: 20, output: 7 });
    });
    const deltas: string[] = [];
    const completion = await provider.complete(
      request({ onDelta: (text) => deltas.push(text), stop: ['END'] }),
    );
    expect(deltas).toEqual(['Hel', 'lo']);
    expect(completion.text).toBe('Hello');
    expect(completion.usage).toEqual({ inputTokens: 20, outputTokens: 7 });
    expect(completion.finishReason).toBe('stop');
    expect(completion.costUsd).toBeCloseTo((20 * 3 + 7 * 15) / 1e6, 12);
    const sent = server.requests[0];
    expect(sent?.url).toBe('/v1/messages');
    // SDK 1.x sends the key as a bearer token; older ones used x-api-key.
    const sentKey =
      sent?.headers['x-api-key'] ?? sent?.headers.authorization?.replace(/^Bearer /, '');
    expect(sentKey).toBe(KEY);
    expect(sent?.body).toMatchObject({
      model: 'claude-sonnet-4-5',
      stream: true,
      max_tokens: 4096,
      system: 'You are terse.',
      stop_sequences: ['END'],
      messages: [{ role: 'user', content: 'Say hello.' }],
    });
  });

  it('maps max_tokens to finishReason length', async () => {
    const { provider } = await providerFor((_req, res) => {
      sendAnthropicStream(res, ['cut'], { input: 1, output: 1 }, 'max_tokens');
    });
    expect((await provider.complete(request())).finishReason).toBe('length');
  });

  it('retries 429 (honouring retry-after) and 529 overloaded, then succeeds', async () => {
    const { provider, server } = await providerFor((_req, res, index) => {
      if (index === 0) {
        sendJson(res, 429, anthropicError('rate_limit_error', 'slow'), { 'retry-after': '0.2' });
      } else if (index === 1) {
        sendJson(res, 529, anthropicError('overloaded_error', 'Overloaded'));
      } else {
        sendAnthropicStream(res, ['fine'], { input: 3, output: 1 });
      }
    });
    const started = performance.now();
    const completion = await provider.complete(request());
    expect(completion.text).toBe('fine');
    expect(server.requests).toHaveLength(3);
    expect(performance.now() - started).toBeGreaterThanOrEqual(190);
  });

  it('retries an overloaded error event sent inside the stream before any text', async () => {
    const { provider, server } = await providerFor((_req, res, index) => {
      if (index === 0) {
        startSse(res);
        res.end(
          anthropicEvent('error', { error: { type: 'overloaded_error', message: 'Overloaded' } }),
        );
      } else {
        sendAnthropicStream(res, ['second'], { input: 3, output: 1 });
      }
    });
    expect((await provider.complete(request())).text).toBe('second');
    expect(server.requests).toHaveLength(2);
  });

  it('gives up after the retries with the last failure named', async () => {
    const { provider } = await providerFor(
      (_req, res) => {
        sendJson(res, 500, anthropicError('api_error', 'Internal server error'));
      },
      { retry: { maxRetries: 1, baseDelayMs: 1, maxDelayMs: 1 } },
    );
    const error = await provider.complete(request()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelRetriesExhaustedError);
    expect((error as Error).message).toContain('HTTP 500: Internal server error');
  });

  it('says which setting holds the key on 401, without the key', async () => {
    const { provider } = await providerFor((_req, res) => {
      sendJson(res, 401, anthropicError('authentication_error', `invalid x-api-key ${KEY}`));
    });
    const error = await provider.complete(request()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelAuthError);
    expect((error as Error).message).toContain('ANTHROPIC_API_KEY');
    expect(`${String(error)} ${(error as Error).stack ?? ''}`).not.toContain(KEY);
  });

  it('cancels mid-stream and closes the connection', async () => {
    const { provider, server } = await providerFor((_req, res) => {
      startSse(res);
      res.write(anthropicStart(5));
      res.write(anthropicText('partial'));
    });
    const controller = new AbortController();
    const call = provider.complete(
      request({
        signal: controller.signal,
        onDelta: () => {
          controller.abort();
        },
      }),
    );
    await expect(call).rejects.toThrow(ModelCallCanceledError);
    await server.closed(0);
  });
});

describe('toAnthropicMessages', () => {
  it('lifts system text out and merges same-role neighbours', () => {
    expect(
      toAnthropicMessages([
        { role: 'system', content: 'A' },
        { role: 'user', content: 'q1' },
        { role: 'user', content: 'q2' },
        { role: 'system', content: 'B' },
        { role: 'assistant', content: 'a1' },
      ]),
    ).toEqual({
      system: 'A\n\nB',
      messages: [
        { role: 'user', content: 'q1\n\nq2' },
        { role: 'assistant', content: 'a1' },
      ],
    });
  });
});
