// Parses a payload against its schema or throws an ApiValidationError naming the field.
import type { z } from 'zod';
import { ApiValidationError } from './errors.ts';
import { compileFastCheck } from './fast-check.ts';

export function parsePayload<S extends z.ZodType>(
  schema: S,
  value: unknown,
  where: string,
): z.output<S> {
  // A value the compiled check vouches for is what zod would give back: used as is (fast-check.ts).
  if (compileFastCheck(schema)(value)) return value as z.output<S>;
  const result = schema.safeParse(value);
  if (!result.success) throw new ApiValidationError(where, result.error);
  return result.data;
}
