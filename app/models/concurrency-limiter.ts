// The "in-flight model calls" budget: at most `max` calls run at once, later ones wait in FIFO
// order, and a waiting call whose signal aborts leaves the queue at once without ever starting.
import { InvalidConcurrencyLimitError, ModelCallCanceledError } from './errors.ts';
import type { Completion, CompletionRequest, Provider } from './provider.ts';

interface Waiter {
  start: () => void;
}

export class ConcurrencyLimiter {
  readonly max: number;
  private running = 0;
  /** A Set keeps insertion order (FIFO) and removes a canceled waiter in O(1). */
  private readonly waiters = new Set<Waiter>();

  constructor(max: number) {
    if (!(max === Number.POSITIVE_INFINITY || (Number.isInteger(max) && max >= 1))) {
      throw new InvalidConcurrencyLimitError(max);
    }
    this.max = max;
  }

  get inFlight(): number {
    return this.running;
  }

  get waiting(): number {
    return this.waiters.size;
  }

  /** Runs `work` when a slot is free; `label` names the call in a cancellation error. */
  async run<T>(work: () => Promise<T>, signal?: AbortSignal, label = 'model'): Promise<T> {
    await this.acquire(signal, label);
    try {
      return await work();
    } finally {
      this.release();
    }
  }

  private acquire(signal: AbortSignal | undefined, label: string): Promise<void> {
    if (signal?.aborted) return Promise.reject(new ModelCallCanceledError(label));
    if (this.running < this.max) {
      this.running++;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const onAbort = (): void => {
        this.waiters.delete(waiter);
        reject(new ModelCallCanceledError(label));
      };
      const waiter: Waiter = {
        start: () => {
          signal?.removeEventListener('abort', onAbort);
          this.running++;
          resolve();
        },
      };
      this.waiters.add(waiter);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  private release(): void {
    this.running--;
    const next = this.waiters.values().next();
    if (!next.done) {
      this.waiters.delete(next.value);
      next.value.start();
    }
  }
}

/** A provider whose calls share `limiter`'s slots with every other provider wrapped with it. */
export class ConcurrencyLimitedProvider implements Provider {
  readonly spec: string;
  private readonly inner: Provider;
  private readonly limiter: ConcurrencyLimiter;

  constructor(inner: Provider, limiter: ConcurrencyLimiter) {
    this.inner = inner;
    this.spec = inner.spec;
    this.limiter = limiter;
  }

  complete(request: CompletionRequest): Promise<Completion> {
    return this.limiter.run(() => this.inner.complete(request), request.signal, this.spec);
  }
}

export function limitConcurrency(
  provider: Provider,
  limit: ConcurrencyLimiter | number,
): ConcurrencyLimitedProvider {
  const limiter = typeof limit === 'number' ? new ConcurrencyLimiter(limit) : limit;
  return new ConcurrencyLimitedProvider(provider, limiter);
}
