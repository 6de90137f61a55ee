import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { syntheticRunEvents } from '../store/run-logs/synthetic-run.ts';
import { commandNames, commands } from './commands.ts';
import { ApiValidationError } from './errors.ts';
import { ApiEvent } from './events.ts';
import { compileFastCheck } from './fast-check.ts';
import { HostFrame } from './protocol.ts';
import { RunEvent } from './runs.ts';
import { parsePayload } from './validate.ts';

const log: unknown[] = [
  ...syntheticRunEvents({ agents: 12, turns: 40, seed: 3 }),
  { kind: 'model.delta', at: 1, agentId: '0.1:llm', turn: 0, text: 'par' },
  { kind: 'agent.failed', at: 2, agentId: '0.2', error: { name: 'E', message: 'm' } },
];

/** What the check promises: `true` only where zod accepts the value and gives back an equal one. */
function expectSound(schema: z.ZodType, value: unknown): boolean {
  const fast = compileFastCheck(schema)(value);
  if (fast) {
    const parsed = schema.safeParse(value);
    expect(parsed.success, JSON.stringify(value)).toBe(true);
    expect(parsed.data, JSON.stringify(value)).toEqual(value);
  }
  return fast;
}

/** A small deterministic generator, so a failure names a reproducible mutation. */
function random(seed: number) {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

const oddValues: unknown[] = [
  undefined,
  null,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  -1,
  1.5,
  0,
  '',
  'x',
  '0.1',
  'bad id',
  true,
  {},
  [],
  [{}],
  { name: 'E', message: 'm' },
];

/** One change somewhere in a JSON value (values arrive as JSON: arrays get no extra keys). */
function mutate(value: unknown, next: () => number): unknown {
  if (Array.isArray(value)) {
    const items = structuredClone(value) as unknown[];
    const index = Math.floor(next() * (items.length + 1));
    items[index] =
      next() < 0.5 ? mutate(items[index] ?? {}, next) : oddValues[index % oddValues.length];
    return items;
  }
  if (typeof value !== 'object' || value === null)
    return oddValues[Math.floor(next() * oddValues.length)];
  const copy = structuredClone(value) as Record<string, unknown>;
  const keys = Object.keys(copy);
  const key = keys[Math.floor(next() * keys.length)] ?? 'kind';
  const pick = next();
  if (pick < 0.15) Reflect.deleteProperty(copy, key);
  else if (pick < 0.25) copy[`extra${String(Math.floor(next() * 3))}`] = 1;
  else if (pick < 0.45 && typeof copy[key] === 'object' && copy[key] !== null)
    copy[key] = mutate(copy[key], next);
  else copy[key] = oddValues[Math.floor(next() * oddValues.length)];
  return copy;
}

describe('compileFastCheck', () => {
  it('vouches for every event of a real log, which zod gives back unchanged', () => {
    const check = compileFastCheck(RunEvent);
    for (const event of log) {
      expect(check(event), JSON.stringify(event)).toBe(true);
      expect(RunEvent.parse(event)).toEqual(event);
    }
    const answer = { run: {}, events: log };
    expect(compileFastCheck(z.array(RunEvent))(answer.events)).toBe(true);
  });

  it('never vouches for a value zod refuses or changes (3,000 random mutations)', () => {
    const next = random(7);
    let vouched = 0;
    let refused = 0;
    for (let round = 0; round < 3000; round++) {
      const event = log[Math.floor(next() * log.length)];
      const mutated = round % 3 === 0 ? mutate(mutate(event, next), next) : mutate(event, next);
      if (expectSound(RunEvent, mutated)) vouched++;
      else refused++;
    }
    // Both answers occur: harmless mutations (an optional field dropped) pass, most do not.
    expect(vouched).toBeGreaterThan(20);
    expect(refused).toBeGreaterThan(1000);
  });

  it('leaves to zod what it would change or refuse: defaults, stripped keys, bad ids, NaN', () => {
    const started = log[0] as { kind: 'run.started'; budgets: Record<string, unknown> };
    expect(started.kind).toBe('run.started');
    const partialBudgets = { ...started.budgets };
    Reflect.deleteProperty(partialBudgets, 'maxTurns');
    const withDefault = { ...started, budgets: partialBudgets };
    expect(expectSound(RunEvent, withDefault)).toBe(false);
    expect(RunEvent.parse(withDefault)).toMatchObject({ budgets: { maxTurns: 10 } });
    const spawned = log.find((event) => (event as { kind: string }).kind === 'agent.spawned');
    expect(expectSound(RunEvent, { ...(spawned as object), extra: 1 })).toBe(false);
    expect(expectSound(RunEvent, { ...(spawned as object), agentId: '1.2' })).toBe(false);
    expect(expectSound(RunEvent, { ...(spawned as object), at: Number.NaN })).toBe(false);
    expect(expectSound(RunEvent, { ...(spawned as object), depth: 1.5 })).toBe(false);
    expect(expectSound(RunEvent, { ...(spawned as object), kind: 'agent.nope' })).toBe(false);
  });

  it('compiles every command and event schema, and vouches for frames as they arrive', () => {
    for (const name of commandNames) {
      compileFastCheck(commands[name].request);
      compileFastCheck(commands[name].response);
    }
    const response = { kind: 'response', id: 3, ok: true, result: { events: log } };
    expect(expectSound(HostFrame, response)).toBe(true);
    const failure = { kind: 'response', id: 3, ok: false, error: { name: 'E', message: 'm' } };
    expect(expectSound(HostFrame, failure)).toBe(true);
    const event = { kind: 'runs.event', at: 1, runId: 'r', seq: 4, event: log[3] };
    expect(expectSound(ApiEvent, event)).toBe(true);
    expect(expectSound(HostFrame, { kind: 'event', event })).toBe(true);
    expect(expectSound(HostFrame, { kind: 'event', event: { ...event, seq: 1.5 } })).toBe(false);
    const events = commands['runs.events'].response;
    expect(expectSound(events, { run: {}, events: log })).toBe(false);
  });

  it('knows nothing of refinements, transforms, formats, records or ambiguous unions', () => {
    const unknown = [
      [z.email(), 'a@b.c'],
      [z.string().trim(), 'a'],
      [z.object({ a: z.string() }).refine(() => true), { a: 'x' }],
      [z.string().transform((text) => text), 'a'],
      [z.record(z.string(), z.number()), { a: 1 }],
      [z.number().multipleOf(2), 4],
      [z.coerce.number(), 4],
      [z.xor([z.string(), z.number()]), 4],
      // zod takes the first option that passes, and strips b: the value would not come back equal.
      [
        z.union([z.object({ a: z.string() }), z.object({ a: z.string(), b: z.number() })]),
        { a: 'x', b: 1 },
      ],
    ] as const;
    for (const [schema, value] of unknown) expect(compileFastCheck(schema)(value)).toBe(false);
    const known = z.object({
      n: z.int().min(0).max(3),
      s: z.string().min(1).max(3),
      list: z.array(z.union([z.string(), z.null()])).length(2),
      choice: z.enum(['a', 'b']).optional(),
    });
    expect(expectSound(known, { n: 3, s: 'abc', list: ['x', null] })).toBe(true);
    expect(expectSound(known, { n: 4, s: 'abc', list: ['x', null] })).toBe(false);
    expect(expectSound(known, { n: 1, s: '', list: ['x', null] })).toBe(false);
    expect(expectSound(known, { n: 1, s: 'a', list: ['x'] })).toBe(false);
    expect(expectSound(known, { n: 1, s: 'a', list: ['x', 2] })).toBe(false);
    expect(expectSound(known, { n: 1, s: 'a', list: ['x', null], choice: 'c' })).toBe(false);
  });

  it('lets parsePayload give back the value itself, and still name the field of a bad one', () => {
    const events = log.slice(0, 5);
    expect(parsePayload(z.array(RunEvent), events, 'log')).toBe(events);
    expect(() =>
      parsePayload(z.array(RunEvent), [{ ...(log[1] as object), agentId: 'x' }], 'log'),
    ).toThrow(ApiValidationError);
    expect(() =>
      parsePayload(z.array(RunEvent), [{ ...(log[1] as object), agentId: 'x' }], 'log'),
    ).toThrow(/agentId/);
  });
});
