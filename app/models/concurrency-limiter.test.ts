// ConcurrencyLimiter: the cap holds, FIFO order, canceled waiters leave the queue.
import { describe, expect, it } from 'vitest';
import { ConcurrencyLimiter, limitConcurrency } from './concurrency-limiter.ts';
import { InvalidConcurrencyLimitError, ModelCallCanceledError } from './errors.ts';
import type { Completion, CompletionRequest, Provider } from './provider.ts';

/** A provider whose calls finish only when the test says so. */
function gatedProvider(): {
  provider: Provider;
  started: string[];
  finish: (agentId: string) => void;
} {
  const started: string[] = [];
  const gates = new Map<string, () => void>();
  const provider: Provider = {
    spec: 'gated:test',
    complete: (request: CompletionRequest) => {
      started.push(request.agentId);
      return new Promise<Completion>((resolve) => {
        gates.set(request.agentId, () => {
          resolve({
            text: request.agentId,
            usage: { inputTokens: 0, outputTokens: 0 },
            costUsd: 0,
            model: 'gated',
            finishReason: 'stop',
            latencyMs: 0,
          });
        });
      });
    },
  };
  return { provider, started, finish: (agentId) => gates.get(agentId)?.() };
}

const ask = (agentId: string, signal?: AbortSignal): CompletionRequest => ({
  messages: [],
  agentId,
  turn: 0,
  signal,
});
const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('ConcurrencyLimiter', () => {
  it('runs at most max calls at once and starts waiters in order', async () => {
    const { provider, started, finish } = gatedProvider();
    const limiter = new ConcurrencyLimiter(2);
    const limited = limitConcurrency(provider, limiter);
    expect(limited.spec).toBe('gated:test');
    const calls = ['0', '0.0', '0.1', '0.2'].map((id) => limited.complete(ask(id)));
    await tick();
    expect(started).toEqual(['0', '0.0']);
    expect([limiter.inFlight, limiter.waiting]).toEqual([2, 2]);
    finish('0.0');
    await tick();
    expect(started).toEqual(['0', '0.0', '0.1']);
    finish('0');
    finish('0.1');
    await tick();
    finish('0.2');
    expect((await Promise.all(calls)).map((c) => c.text)).toEqual(['0', '0.0', '0.1', '0.2']);
    expect([limiter.inFlight, limiter.waiting]).toEqual([0, 0]);
  });

  it('removes a canceled waiter from the queue without starting it', async () => {
    const { provider, started, finish } = gatedProvider();
    const limiter = new ConcurrencyLimiter(1);
    const limited = limitConcurrency(provider, limiter);
    const first = limited.complete(ask('0'));
    const controller = new AbortController();
    const canceled = limited.complete(ask('0.0', controller.signal));
    const third = limited.complete(ask('0.1'));
    await tick();
    expect(limiter.waiting).toBe(2);
    controller.abort();
    await expect(canceled).rejects.toThrow(ModelCallCanceledError);
    expect(limiter.waiting).toBe(1);
    finish('0');
    await first;
    await tick();
    expect(started).toEqual(['0', '0.1']);
    finish('0.1');
    await third;
    await expect(limited.complete(ask('x', AbortSignal.abort()))).rejects.toThrow(
      ModelCallCanceledError,
    );
    expect(limiter.inFlight).toBe(0);
  });

  it('frees the slot when a call fails', async () => {
    const limiter = new ConcurrencyLimiter(1);
    await expect(limiter.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await limiter.run(() => Promise.resolve(7))).toBe(7);
  });

  it('rejects a limit that is not a whole number of at least 1', () => {
    expect(() => new ConcurrencyLimiter(0)).toThrow(InvalidConcurrencyLimitError);
    expect(() => new ConcurrencyLimiter(1.5)).toThrow(InvalidConcurrencyLimitError);
    expect(new ConcurrencyLimiter(Number.POSITIVE_INFINITY).max).toBe(Number.POSITIVE_INFINITY);
  });
});
