// The REPL's limits and their defaults (RLM-SPEC section 2: execution 180 s; the loop, not the
// REPL, cuts what it shows back to 20,000 characters, so the REPL keeps more).
import { ReplLimitError } from './errors.ts';
import type { ReplLimits } from './types.ts';

export const defaultLimits: Readonly<ReplLimits> = {
  timeoutMs: 180_000,
  maxOutputChars: 100_000,
  maxMemoryBytes: 1024 * 1024 * 1024,
};

/** wasm32 addresses 4 GiB; keep the ceiling below it so the cap, not the address space, decides. */
const MAX_MEMORY_BYTES = 3 * 1024 * 1024 * 1024;
const MIN_MEMORY_BYTES = 128 * 1024 * 1024;

export function resolveLimits(partial: Partial<ReplLimits> = {}): ReplLimits {
  const limits = { ...defaultLimits, ...partial };
  if (!Number.isFinite(limits.timeoutMs) || limits.timeoutMs <= 0) {
    throw new ReplLimitError('timeoutMs', limits.timeoutMs, 'a positive number of milliseconds');
  }
  if (!Number.isInteger(limits.maxOutputChars) || limits.maxOutputChars < 1) {
    throw new ReplLimitError('maxOutputChars', limits.maxOutputChars, 'a positive integer');
  }
  if (
    !Number.isFinite(limits.maxMemoryBytes) ||
    limits.maxMemoryBytes < MIN_MEMORY_BYTES ||
    limits.maxMemoryBytes > MAX_MEMORY_BYTES
  ) {
    throw new ReplLimitError('maxMemoryBytes', limits.maxMemoryBytes, 'between 128 MiB and 3 GiB');
  }
  return limits;
}
