// `local:PATH` through createProvider with the engine's CLI extensions (as the composition root
// installs them): an RLM run on a scripted local model runs its code and ends with its answer;
// streaming, stop strings, usage and concurrent requests batched on one decoder.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createProvider, type Provider } from '../../../app/models/index.ts';
import { localProviderFactory } from './local-provider-factory.ts';
import {
  LOCAL_RLM_SCRIPT,
  runRlmOnScript,
  writeScriptedModel,
} from './scripted-model.test-support.ts';

const dir = mkdtempSync(join(tmpdir(), 'rlm-local-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});
const SCRIPT = LOCAL_RLM_SCRIPT;
const { model } = writeScriptedModel(dir, SCRIPT);

async function localProvider(): Promise<Provider> {
  const providers = { local: localProviderFactory() };
  return createProvider(`local:${model}`, {
    factories: providers,
    env: { RLM_STUDIO_BACKEND: 'wasm' },
  });
}

describe('local: provider', () => {
  it('runs the RLM loop: the local model writes code, the REPL runs it, FINAL answers', async () => {
    const provider = await localProvider();
    const { outcome, events, ran } = await runRlmOnScript(provider, 'local-1');
    expect(outcome.status).toBe('done');
    expect(outcome.answer).toBe('local');
    expect(ran.map((code) => code.trim())).toEqual(["print('hello from a local model')"]);
    const deltas = events
      .filter((e) => e.kind === 'model.delta')
      .map((e) => e.text)
      .join('');
    expect(deltas).toBe(SCRIPT.join(''));
  });

  it('reports usage, stops at stop strings and batches concurrent requests', async () => {
    const provider = await localProvider();
    const ask = (turn: number, stop?: string[]) =>
      provider.complete({
        messages: [{ role: 'user', content: `question ${turn}` }],
        agentId: '0',
        turn,
        ...(stop ? { stop } : {}),
      });
    const [plain, stopped, short] = await Promise.all([
      ask(0),
      ask(1, ['print']),
      provider.complete({
        messages: [{ role: 'user', content: 'hi' }],
        agentId: '0',
        turn: 2,
        maxTokens: 2,
      }),
    ]);
    expect(plain.text).toBe(SCRIPT.join(''));
    expect(plain.finishReason).toBe('stop');
    expect(plain.usage.outputTokens).toBe(SCRIPT.length);
    expect(plain.usage.inputTokens).toBeGreaterThan(5);
    expect(plain.costUsd).toBe(0);
    expect(stopped.text).toBe('```repl\n');
    expect(short.text).toBe(SCRIPT.slice(0, 2).join(''));
    expect(short.finishReason).toBe('length');
  });

  it('names a missing model file', async () => {
    const providers = { local: localProviderFactory() };
    await expect(
      createProvider(`local:${join(dir, 'nope.bin')}`, {
        factories: providers,
        env: { RLM_STUDIO_BACKEND: 'wasm' },
      }),
    ).rejects.toThrow(/MissingModelFile|has no nope\.bin/);
  });
});
