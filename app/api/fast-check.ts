// A fast yes-or-don't-know check compiled from a zod schema, for large payloads (a 22k-event run log
// took zod 200-300 ms in the renderer, where the CSP forbids the eval zod's own fast path needs).
// `true` promises that zod would accept the value and give back an equal value (no defaults filled,
// no keys stripped, no transforms), so the value can be used as is; `false` means only "ask zod",
// which then gives the output or the named error. Anything this compiler does not know (transforms,
// refinements, formats other than a regex, records, lazy schemas...) compiles to `false`.
import { z } from 'zod';

export type FastCheck = (value: unknown) => boolean;

interface CheckDef {
  check: string;
  format?: string;
  pattern?: RegExp;
  value?: unknown;
  inclusive?: boolean;
  minimum?: number;
  maximum?: number;
  length?: number;
}

interface Def {
  type: string;
  checks?: { _zod: { def: CheckDef } }[];
  format?: string;
  shape?: Record<string, z.ZodType>;
  element?: z.ZodType;
  innerType?: z.ZodType;
  options?: z.ZodType[];
  discriminator?: string;
  inclusive?: boolean;
  values?: unknown[];
  entries?: Record<string, unknown>;
}

const never: FastCheck = () => false;
/** zod's own condition on length checks ("the value has a length"); any other `when` is unknown. */
const lengthWhen = (
  z.string().min(1) as unknown as {
    _zod: { def: { checks: { _zod: { def: { when?: unknown } } }[] } };
  }
)._zod.def.checks[0]?._zod.def.when;
const defOf = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;

/** The keys a def may have for this compiler to know all it says (anything more: `never`). */
const knownKeys: Record<string, readonly string[]> = {
  string: ['type', 'checks'],
  number: ['type', 'checks', 'format', 'check', 'abort'],
  boolean: ['type', 'checks'],
  null: ['type', 'checks'],
  undefined: ['type', 'checks'],
  unknown: ['type', 'checks'],
  any: ['type', 'checks'],
  literal: ['type', 'values', 'checks'],
  enum: ['type', 'entries', 'checks'],
  optional: ['type', 'innerType', 'checks'],
  nullable: ['type', 'innerType', 'checks'],
  default: ['type', 'innerType', 'defaultValue', 'checks'],
  array: ['type', 'element', 'checks'],
  object: ['type', 'shape', 'catchall', 'checks'],
  union: ['type', 'options', 'discriminator', 'inclusive', 'checks'],
};
const checkKeys = new Set([
  'check',
  'format',
  'pattern',
  'value',
  'inclusive',
  'minimum',
  'maximum',
  'length',
  'abort',
  'error',
  'when',
  'type',
]);

const compiled = new WeakMap<z.ZodType, FastCheck>();

export function compileFastCheck(schema: z.ZodType): FastCheck {
  const known = compiled.get(schema);
  if (known) return known;
  // A placeholder first: a schema that reaches itself (none do today) is simply not known.
  compiled.set(schema, never);
  const check = compile(schema);
  compiled.set(schema, check);
  return check;
}

function compile(schema: z.ZodType): FastCheck {
  const def = defOf(schema);
  const allowed = knownKeys[def.type];
  if (!allowed || Object.keys(def).some((key) => !allowed.includes(key))) return never;
  const refinements = (def.checks ?? []).map((entry) => entry._zod.def);
  if (refinements.some((check) => Object.keys(check).some((key) => !checkKeys.has(key))))
    return never;
  switch (def.type) {
    case 'string':
      return withChecks((value) => typeof value === 'string', refinements, 'string');
    case 'number': {
      if (def.format !== undefined && def.format !== 'safeint') return never;
      const base: FastCheck =
        def.format === 'safeint'
          ? (value) => Number.isSafeInteger(value)
          : (value) => typeof value === 'number' && Number.isFinite(value);
      return withChecks(base, refinements, 'number');
    }
    case 'boolean':
      return noChecks(refinements, (value) => typeof value === 'boolean');
    case 'null':
      return noChecks(refinements, (value) => value === null);
    case 'undefined':
      return noChecks(refinements, (value) => value === undefined);
    case 'unknown':
    case 'any':
      return noChecks(refinements, () => true);
    case 'literal': {
      const values = new Set(def.values ?? []);
      return noChecks(refinements, (value) => values.has(value));
    }
    case 'enum': {
      const values = Object.values(def.entries ?? {});
      if (values.some((value) => typeof value !== 'string')) return never;
      const set = new Set(values);
      return noChecks(refinements, (value) => set.has(value));
    }
    case 'optional': {
      const inner = compileInner(def.innerType);
      return noChecks(refinements, (value) => value === undefined || inner(value));
    }
    case 'nullable': {
      const inner = compileInner(def.innerType);
      return noChecks(refinements, (value) => value === null || inner(value));
    }
    case 'default': {
      // A missing value would be filled in: only a present one is given back unchanged.
      const inner = compileInner(def.innerType);
      return noChecks(refinements, (value) => value !== undefined && inner(value));
    }
    case 'array': {
      const element = compileInner(def.element);
      const base: FastCheck = (value) => {
        if (!Array.isArray(value)) return false;
        for (const item of value) if (!element(item)) return false;
        return true;
      };
      return withChecks(base, refinements, 'array');
    }
    case 'object':
      return noChecks(refinements, objectCheck(def.shape ?? {}));
    case 'union':
      return noChecks(refinements, unionCheck(def));
    default:
      return never;
  }
}

const compileInner = (schema: z.ZodType | undefined): FastCheck =>
  schema ? compileFastCheck(schema) : never;

function noChecks(refinements: CheckDef[], check: FastCheck): FastCheck {
  return refinements.length === 0 ? check : never;
}

/** Length and bound checks, and a string's regex; any other check makes the schema unknown. */
function withChecks(
  base: FastCheck,
  refinements: CheckDef[],
  kind: 'string' | 'number' | 'array',
): FastCheck {
  const tests: ((value: never) => boolean)[] = [];
  for (const check of refinements) {
    if ('when' in check && (check as { when?: unknown }).when !== lengthWhen) return never;
    const { pattern, value: bound, inclusive, minimum, maximum, length } = check;
    if (kind === 'string' && check.check === 'string_format' && check.format === 'regex') {
      if (!(pattern instanceof RegExp)) return never;
      tests.push((value: string) => {
        pattern.lastIndex = 0;
        return pattern.test(value);
      });
    } else if (kind === 'number' && check.check === 'number_format' && check.format === 'safeint')
      tests.push((value: number) => Number.isSafeInteger(value));
    else if (kind === 'number' && check.check === 'greater_than' && typeof bound === 'number')
      tests.push(inclusive ? (value: number) => value >= bound : (value: number) => value > bound);
    else if (kind === 'number' && check.check === 'less_than' && typeof bound === 'number')
      tests.push(inclusive ? (value: number) => value <= bound : (value: number) => value < bound);
    else if (kind !== 'number' && check.check === 'min_length' && typeof minimum === 'number')
      tests.push((value: { length: number }) => value.length >= minimum);
    else if (kind !== 'number' && check.check === 'max_length' && typeof maximum === 'number')
      tests.push((value: { length: number }) => value.length <= maximum);
    else if (kind !== 'number' && check.check === 'length_equals' && typeof length === 'number')
      tests.push((value: { length: number }) => value.length === length);
    else return never;
  }
  if (tests.length === 0) return base;
  return (value) => {
    if (!base(value)) return false;
    for (const test of tests) if (!test(value as never)) return false;
    return true;
  };
}

/** zod lets an object lack only optional keys (a required z.unknown() key must be there). */
const mayBeMissing = (field: z.ZodType) =>
  (field as unknown as { _zod: { optin?: string } })._zod.optin === 'optional';

/** Every shape key checked (present unless optional), and no key the shape lacks: zod would strip it. */
function objectCheck(shape: Record<string, z.ZodType>): FastCheck {
  const fields = Object.entries(shape).map(
    ([key, field]) => [key, compileFastCheck(field), mayBeMissing(field)] as const,
  );
  return (value) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
    const record = value as Record<string, unknown>;
    for (const [key, check, optional] of fields)
      if (!check(record[key]) || (!optional && !(key in record))) return false;
    for (const key in record) if (!Object.hasOwn(shape, key)) return false;
    return true;
  };
}

/** The literal values `key` takes in this schema (an object's literal field, or a union's), or null. */
function literalValues(schema: z.ZodType, key: string): unknown[] | null {
  const def = defOf(schema);
  if (def.type === 'object') {
    const field = def.shape?.[key];
    const fieldDef = field ? defOf(field) : undefined;
    return fieldDef?.type === 'literal' ? (fieldDef.values ?? null) : null;
  }
  if (def.type === 'union' && def.options) {
    const all: unknown[] = [];
    for (const option of def.options) {
      const values = literalValues(option, key);
      if (!values) return null;
      all.push(...values);
    }
    return all;
  }
  return null;
}

/** The keys of an object schema (of a union's first option): where a union may be told apart. */
function shapeKeys(schema: z.ZodType): string[] {
  const def = defOf(schema);
  if (def.type === 'object') return Object.keys(def.shape ?? {});
  if (def.type === 'union' && def.options?.[0]) return shapeKeys(def.options[0]);
  return [];
}

/** A value whose every accepted form zod gives back unchanged (no object or array copies). */
function isScalar(schema: z.ZodType): boolean {
  const def = defOf(schema);
  if (['optional', 'nullable'].includes(def.type))
    return def.innerType !== undefined && isScalar(def.innerType);
  return ['string', 'number', 'boolean', 'null', 'undefined', 'literal', 'enum'].includes(def.type);
}

/**
 * A union picks its option by a literal field (a discriminated union, or options whose literals on
 * one key never overlap), so the option checked is the one zod takes; or all options are scalars.
 */
function unionCheck(def: Def): FastCheck {
  const options = def.options ?? [];
  if (def.inclusive === false && def.discriminator === undefined) return never;
  const keys =
    def.discriminator !== undefined ? [def.discriminator] : options[0] ? shapeKeys(options[0]) : [];
  for (const key of keys) {
    const byValue = new Map<unknown, FastCheck>();
    let disjoint = options.length > 0;
    for (const option of options) {
      const values = literalValues(option, key);
      if (!values || values.some((value) => byValue.has(value))) {
        disjoint = false;
        break;
      }
      const check = compileFastCheck(option);
      for (const value of values) byValue.set(value, check);
    }
    if (!disjoint) continue;
    return (value) => {
      if (typeof value !== 'object' || value === null) return false;
      return byValue.get((value as Record<string, unknown>)[key])?.(value) ?? false;
    };
  }
  if (def.discriminator === undefined && options.every(isScalar)) {
    const checks = options.map((option) => compileFastCheck(option));
    return (value) => checks.some((check) => check(value));
  }
  return never;
}
