// OpenAICompatibleProvider against local fake servers: streaming, usage, retries, Retry-After,
// named errors, redaction and cancellation.
import { afterEach, describe, expect, it } from 'vitest';
import {
  ModelAuthError,
  ModelBadRequestError,
  ModelCallCanceledError,
  ModelNotFoundError,
  ModelRequestError,
  ModelRetriesExhaustedError,
  ModelStreamInterruptedError,
  ModelTimeoutError,
} from './errors.ts';
import {
  openAIChunk,
  sendJson,
  sendOpenAIStream,
  startFakeServer,
  startSse,
  type FakeHandler,
  type FakeServer,
} from './fake-servers.test-support.ts';
import { OpenAICompatibleProvider, type OpenAICompatibleOptions } from './openai-provider.ts';
import { KNOWN_MODEL_PRICES } from './pricing.ts';
import type { CompletionRequest } from './provider.ts';

const KEY = 'sk-test-0123456789abcdefSECRET';
let server: FakeServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function providerFor(
  handler: FakeHandler,
  options: Partial<OpenAICompatibleOptions> = {},
): Promise<{ provider: OpenAICompatibleProvider; server: FakeServer }> {
  server = await startFakeServer(handler);
  const provider = new OpenAICompatibleProvider({
    model: 'fake-model',
    baseUrl: `${server.origin}/v1`,
    apiKey: KEY,
    retry: { maxRetries: 3, baseDelayMs: 1, maxDelayMs: 5 },
    ...options,
  });
  return { provider, server };
}

const request = (extra: Partial<CompletionRequest> = {}): CompletionRequest => ({
  messages: [
    { role: 'system', content: 'You are terse.' },
    { role: 'user', content: 'Say hello.' },
  ],
  agentId: '0',
  turn: 0,
  ...extra,
});

describe('OpenAICompatibleProvider', () => {
  it('streams deltas in order and takes usage from the stream', async () => {
    const { provider, server } = await providerFor((_req, res) => {
      sendOpenAIStream(res, ['Hel', 'lo', ' world'], { prompt_tokens: 12, completion_tokens: 3 });
    });
    const deltas: string[] = [];
    const completion = await provider.complete(
      request({ onDelta: (text) => deltas.push(text), maxTokens: 50, temperature: 0.2 }),
    );
    expect(deltas).toEqual(['Hel', 'lo', ' world']);
    expect(completion.text).toBe('Hello world');
    expect(completion.usage).toEqual({ inputTokens: 12, outputTokens: 3 });
    expect(completion.finishReason).toBe('stop');
    expect(completion.costUsd).toBeNull();
    const sent = server.requests[0];
    expect(sent?.url).toBe('/v1/chat/completions');
    expect(sent?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(sent?.body).toMatchObject({
      model: 'fake-model',
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 50,
      temperature: 0.2,
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'Say hello.' },
      ],
    });
  });

  it('estimates usage as chars/4 when the server sends none, and prices known models', async () => {
    const { provider } = await providerFor(
      (_req, res) => {
        sendOpenAIStream(res, ['12345678']);
      },
      { model: 'gpt-4o-mini', prices: KNOWN_MODEL_PRICES },
    );
    const completion = await provider.complete(request());
    // 'You are terse.' (14) + 'Say hello.' (10) = 24 chars -> 6 tokens; 8 chars -> 2 tokens.
    expect(completion.usage).toEqual({ inputTokens: 6, outputTokens: 2, estimated: true });
    expect(completion.costUsd).toBeCloseTo((6 * 0.15 + 2 * 0.6) / 1e6, 12);
  });

  it('retries 429 and 500, then succeeds', async () => {
    const { provider, server } = await providerFor((_req, res, index) => {
      if (index === 0) sendJson(res, 429, { error: { message: 'slow down' } });
      else if (index === 1) sendJson(res, 500, { error: { message: 'boom' } });
      else sendOpenAIStream(res, ['ok']);
    });
    const completion = await provider.complete(request());
    expect(completion.text).toBe('ok');
    expect(server.requests).toHaveLength(3);
  });

  it('honours Retry-After', async () => {
    const { provider } = await providerFor((_req, res, index) => {
      if (index === 0)
        sendJson(res, 429, { error: { message: 'later' } }, { 'retry-after': '0.3' });
      else sendOpenAIStream(res, ['ok']);
    });
    const started = performance.now();
    await provider.complete(request());
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
  });

  it('gives up with ModelRetriesExhaustedError after the last retry', async () => {
    const { provider, server } = await providerFor(
      (_req, res) => {
        sendJson(res, 503, { error: { message: 'overloaded' } });
      },
      { retry: { maxRetries: 2, baseDelayMs: 1, maxDelayMs: 2 } },
    );
    const error = await provider.complete(request()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelRetriesExhaustedError);
    expect((error as ModelRetriesExhaustedError).attempts).toBe(3);
    expect((error as Error).message).toContain('HTTP 503: overloaded');
    expect(server.requests).toHaveLength(3);
  });

  it('names the key setting on 401 and never shows the key', async () => {
    const { provider, server } = await providerFor(
      (_req, res) => {
        sendJson(res, 401, { error: { message: `Incorrect API key provided: ${KEY}` } });
      },
      { keySource: 'OPENAI_API_KEY or Settings > Models' },
    );
    const error = await provider.complete(request()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelAuthError);
    const shown = `${String(error)} ${(error as Error).stack ?? ''} ${JSON.stringify(error)}`;
    expect(shown).toContain('OPENAI_API_KEY');
    expect(shown).not.toContain(KEY);
    expect(shown).not.toContain('SECRET');
    expect(server.requests).toHaveLength(1);
  });

  it('reports 404 as ModelNotFoundError and 400 with the server message', async () => {
    const { provider } = await providerFor((_req, res, index) => {
      if (index === 0) sendJson(res, 404, { error: { message: 'model nope does not exist' } });
      else sendJson(res, 400, { error: { message: 'context length exceeded (9000 > 8192)' } });
    });
    await expect(provider.complete(request())).rejects.toThrow(ModelNotFoundError);
    const error = await provider.complete(request()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelBadRequestError);
    expect((error as Error).message).toContain('context length exceeded (9000 > 8192)');
  });

  it('cancels mid-stream promptly and aborts the HTTP request', async () => {
    const { provider, server } = await providerFor((_req, res) => {
      startSse(res);
      res.write(openAIChunk('first'));
      // ...and never finishes.
    });
    const controller = new AbortController();
    const deltas: string[] = [];
    const call = provider.complete(
      request({
        signal: controller.signal,
        onDelta: (text) => {
          deltas.push(text);
          setTimeout(() => {
            controller.abort();
          }, 10);
        },
      }),
    );
    const started = performance.now();
    await expect(call).rejects.toThrow(ModelCallCanceledError);
    expect(performance.now() - started).toBeLessThan(500);
    expect(deltas).toEqual(['first']);
    await server.closed(0);
    expect(server.requests).toHaveLength(1);
  });

  it('rejects at once when the signal is already aborted', async () => {
    const { provider, server } = await providerFor((_req, res) => {
      sendOpenAIStream(res, ['never']);
    });
    await expect(provider.complete(request({ signal: AbortSignal.abort() }))).rejects.toThrow(
      ModelCallCanceledError,
    );
    expect(server.requests).toHaveLength(0);
  });

  it('retries an attempt that times out before any text, and fails one that times out mid-answer', async () => {
    const silent = await providerFor(
      () => {
        // never answers
      },
      { timeoutMs: 80, retry: { maxRetries: 1, baseDelayMs: 1, maxDelayMs: 1 } },
    );
    const error = await silent.provider.complete(request()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelRetriesExhaustedError);
    expect((error as Error).message).toContain('80 ms timeout');
    expect(silent.server.requests).toHaveLength(2);
    await silent.server.close();

    const slow = await providerFor(
      (_req, res) => {
        startSse(res);
        res.write(openAIChunk('partial'));
      },
      { timeoutMs: 100 },
    );
    await expect(slow.provider.complete(request({ onDelta: () => undefined }))).rejects.toThrow(
      ModelTimeoutError,
    );
    expect(slow.server.requests).toHaveLength(1);
  });

  it('retries when nothing listens on the port, then says it could not reach it', async () => {
    const { provider, server } = await providerFor(() => undefined, {
      retry: { maxRetries: 1, baseDelayMs: 1, maxDelayMs: 1 },
    });
    await server.close();
    const error = await provider.complete(request()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelRetriesExhaustedError);
    expect((error as Error).message).toMatch(/could not reach http:\/\/127\.0\.0\.1:\d+\/v1/);
  });

  it('retries a stream that breaks before anyone saw text, but not one that was shown', async () => {
    const { provider, server } = await providerFor((_req, res, index) => {
      if (index === 0 || index === 2) {
        startSse(res);
        res.write(openAIChunk('half an ans'));
        setTimeout(() => res.destroy(), 20);
      } else sendOpenAIStream(res, ['whole answer']);
    });
    expect((await provider.complete(request())).text).toBe('whole answer');
    expect(server.requests).toHaveLength(2);
    const error = await provider
      .complete(request({ onDelta: () => undefined }))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelStreamInterruptedError);
    expect(server.requests).toHaveLength(3);
  });

  it('passes an exception from onDelta through untouched, without retrying', async () => {
    const { provider, server } = await providerFor((_req, res) => {
      sendOpenAIStream(res, ['a', 'b']);
    });
    const failure = new Error('listener broke');
    await expect(
      provider.complete(
        request({
          onDelta: () => {
            throw failure;
          },
        }),
      ),
    ).rejects.toBe(failure);
    expect(server.requests).toHaveLength(1);
  });

  it('reassembles events split across writes, CRLF framing and multi-line data', async () => {
    const { provider } = await providerFor((_req, res) => {
      startSse(res);
      const first = openAIChunk('Hel');
      res.write(first.slice(0, 17));
      setTimeout(() => {
        res.write(first.slice(17) + ': a comment line\n\n');
        res.write(openAIChunk('lo').replace(/\n\n$/, '\r\n\r\n'));
        res.end('data: [DONE]\n\n');
      }, 10);
    });
    expect((await provider.complete(request())).text).toBe('Hello');
  });

  it('names a stream of garbage instead of crashing, without retrying', async () => {
    const { provider, server } = await providerFor((_req, res) => {
      startSse(res);
      res.end('data: {"not": "a chunk"}\n\n');
    });
    const error = await provider.complete(request()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelRequestError);
    expect((error as Error).message).toContain('not a chat completion chunk');
    expect(server.requests).toHaveLength(1);
  });

  it('reports an error event inside the stream with the server message', async () => {
    const { provider } = await providerFor((_req, res) => {
      startSse(res);
      res.end(
        'data: {"error": {"message": "prompt too long for this model", "type": "invalid"}}\n\n',
      );
    });
    const error = await provider.complete(request()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelRequestError);
    expect((error as Error).message).toContain('prompt too long for this model');
  });
});
