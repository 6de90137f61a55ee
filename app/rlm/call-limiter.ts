// The run's in-flight budget on model calls (shared by concurrent runs when the service passes
// one limiter to all of them).
import { RunCanceledError } from './errors.ts';

/** Serialises work over a budget of concurrent calls; a waiter leaves when its signal fires. */
export type CallLimiter = <T>(work: () => Promise<T>, signal: AbortSignal) => Promise<T>;

/** A tiny FIFO limiter: at most `max` tasks at once. */
export function createLimiter(max: number): CallLimiter {
  let active = 0;
  const waiting: (() => void)[] = [];
  return async (work, signal) => {
    if (active >= max) {
      await new Promise<void>((resolve, reject) => {
        const go = () => {
          signal.removeEventListener('abort', stop);
          resolve();
        };
        const stop = () => {
          const index = waiting.indexOf(go);
          if (index >= 0) waiting.splice(index, 1);
          reject(new RunCanceledError());
        };
        waiting.push(go);
        signal.addEventListener('abort', stop, { once: true });
      });
    }
    active++;
    try {
      return await work();
    } finally {
      active--;
      waiting.shift()?.();
    }
  };
}
