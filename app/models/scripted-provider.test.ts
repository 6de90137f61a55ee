// ScriptedProvider (by agent and turn, exhaustion, bad files, delays) and ReplayProvider.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { splitIntoChunks } from './canned-answer.ts';
import {
  InvalidScriptError,
  ModelCallCanceledError,
  ReplayEntryMissingError,
  ScriptExhaustedError,
} from './errors.ts';
import type { CompletionRequest } from './provider.ts';
import { ReplayProvider } from './replay-provider.ts';
import { ScriptedProvider } from './scripted-provider.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rlm-scripted-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function scriptFile(name: string, content: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, content);
  return path;
}

const ask = (agentId: string, turn: number, extra: Partial<CompletionRequest> = {}) => ({
  messages: [{ role: 'user' as const, content: 'question text' }],
  agentId,
  turn,
  ...extra,
});

describe('ScriptedProvider', () => {
  it('answers by agent id and turn, streaming each answer in a few chunks', async () => {
    const path = await scriptFile(
      'two-agents.json',
      JSON.stringify({
        '0': ['root turn 0', 'root turn 1'],
        '0.0': ['child says hi'],
        '0:llm': ['plain call'],
      }),
    );
    const provider = await ScriptedProvider.fromFile(path);
    expect(provider.spec).toBe(`scripted:${path}`);
    const deltas: string[] = [];
    const first = await provider.complete(ask('0', 0, { onDelta: (text) => deltas.push(text) }));
    expect(first.text).toBe('root turn 0');
    expect(deltas.join('')).toBe('root turn 0');
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.length).toBeLessThanOrEqual(3);
    expect((await provider.complete(ask('0.0', 0))).text).toBe('child says hi');
    expect((await provider.complete(ask('0', 1))).text).toBe('root turn 1');
    expect((await provider.complete(ask('0:llm', 0))).text).toBe('plain call');
    expect(first.usage).toEqual({ inputTokens: 4, outputTokens: 3, estimated: true });
    expect(first.costUsd).toBe(0);
    expect(first.finishReason).toBe('stop');
  });

  it('fails with ScriptExhaustedError naming the agent and its response count', async () => {
    const provider = ScriptedProvider.fromObject({ '0': ['a', 'b'] }, { source: 'demo.json' });
    const error = await provider.complete(ask('0', 2)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ScriptExhaustedError);
    expect(error).toMatchObject({ agentId: '0', responses: 2, turn: 2 });
    expect((error as Error).message).toContain("agent '0' had 2 responses");
    const missing = await provider.complete(ask('0.3', 0)).catch((e: unknown) => e);
    expect((missing as Error).message).toContain("no responses for agent '0.3'");
    // An inherited property is not an agent.
    await expect(provider.complete(ask('constructor', 0))).rejects.toThrow(ScriptExhaustedError);
  });

  it.each([
    ['not-json.json', '{"0": [', 'it is not JSON'],
    ['list.json', '["a"]', 'the top level is a list, not an object'],
    ['not-strings.json', '{"0": ["ok", 3]}', 'at "0"[1]: each response must be a string'],
    ['not-list.json', '{"0": "just one"}', 'at "0": each agent needs a list'],
    ['bad-id.json', '{"root": ["x"]}', '"root" is not an agent id; agent ids are tree paths'],
    ['bad-suffix.json', '{"0": [], "0.x": ["x"], "0:": []}', '"0.x", "0:" are not agent ids'],
    ['bad-delay.json', '{"delayMs": -5, "responses": {}}', 'at "delayMs"'],
    ['extra-key.json', '{"delayMs": 5, "responses": {}, "0": ["x"]}', 'Unrecognized key'],
  ])('rejects %s with a named error saying what is wrong', async (name, content, expected) => {
    const path = await scriptFile(name, content);
    const error = await ScriptedProvider.fromFile(path).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidScriptError);
    expect((error as Error).message).toContain(path);
    expect((error as Error).message).toContain(expected);
  });

  it('names a file that cannot be read', async () => {
    await expect(ScriptedProvider.fromFile(join(dir, 'absent.json'))).rejects.toThrow(
      /cannot be read/,
    );
  });

  it('takes the delayed shape and can be canceled while it waits', async () => {
    const path = await scriptFile(
      'slow.json',
      JSON.stringify({ delayMs: 60, responses: { '0': ['slow answer'] } }),
    );
    const provider = await ScriptedProvider.fromFile(path);
    const started = performance.now();
    expect((await provider.complete(ask('0', 0))).text).toBe('slow answer');
    expect(performance.now() - started).toBeGreaterThanOrEqual(50);
    const inline = ScriptedProvider.fromObject({ delayMs: 40, responses: { '0': ['x'] } });
    const inlineStart = performance.now();
    await inline.complete(ask('0', 0));
    expect(performance.now() - inlineStart).toBeGreaterThanOrEqual(35);
    const controller = new AbortController();
    const call = provider.complete(ask('0', 0, { signal: controller.signal }));
    controller.abort();
    await expect(call).rejects.toThrow(ModelCallCanceledError);
  });

  it('answers without waiting on a timer when it has no delay', async () => {
    const provider = ScriptedProvider.fromObject({ '0': Array.from({ length: 1000 }, () => 'x') });
    const started = performance.now();
    for (let turn = 0; turn < 1000; turn++) await provider.complete(ask('0', turn));
    expect(performance.now() - started).toBeLessThan(500);
  });
});

describe('splitIntoChunks', () => {
  it('keeps all the text, and never cuts a surrogate pair', () => {
    expect(splitIntoChunks('abcdefg', 3)).toEqual(['abc', 'def', 'g']);
    expect(splitIntoChunks('', 3)).toEqual([]);
    const emoji = 'a😀b😀';
    const pieces = splitIntoChunks(emoji, 3);
    expect(pieces.join('')).toBe(emoji);
    for (const piece of pieces) expect(piece.isWellFormed()).toBe(true);
  });
});

describe('ReplayProvider', () => {
  it('gives back stored responses and names a missing one', async () => {
    const stored = new Map([['0/0', 'stored answer']]);
    const provider = new ReplayProvider('run-42', (agentId, turn) =>
      stored.get(`${agentId}/${turn}`),
    );
    expect(provider.spec).toBe('replay:run-42');
    const deltas: string[] = [];
    const completion = await provider.complete(ask('0', 0, { onDelta: (d) => deltas.push(d) }));
    expect(completion.text).toBe('stored answer');
    expect(deltas.join('')).toBe('stored answer');
    const error = await provider.complete(ask('0.1', 3)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ReplayEntryMissingError);
    expect((error as Error).message).toContain(
      "run 'run-42' has no stored response for agent '0.1' turn 3",
    );
  });

  it('accepts an async lookup', async () => {
    const provider = new ReplayProvider('r', () => Promise.resolve('later'));
    expect((await provider.complete(ask('0', 0))).text).toBe('later');
  });
});
