// Parses a payload against its schema or throws an ApiValidationError naming the field. zod's own
// parse, everywhere: in the renderer (whose CSP forbids the eval zod's compiled fast path needs) a
// 5,000-turn run log (22k events) opens in 0.3-0.45 s with it (bench:ui, docs/DECISIONS.md).
import type { z } from 'zod';
import { ApiValidationError } from './errors.ts';

export function parsePayload<S extends z.ZodType>(
  schema: S,
  value: unknown,
  where: string,
): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw new ApiValidationError(where, result.error);
  return result.data;
}
