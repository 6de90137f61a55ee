// Parses a payload against its schema or throws an ApiValidationError naming the field.
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
