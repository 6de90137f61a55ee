// `local:` through its own process (app/host/local-model-process.ts, as the desktop shell composes
// it) against the same model decoded in this process: the same replies, deltas, usage, stop strings
// and batching, a real RLM run, cancellation, and named errors for a missing model and a process
// that dies mid-request.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { localModelProcesses } from './local-model-process.ts';
import { createProvider, type CompletionRequest, type Provider } from '../../app/models/index.ts';
import { inProcessLocalModels } from '../compose/local-models.ts';
import {
  LOCAL_RLM_SCRIPT,
  runRlmOnScript,
  writeScriptedModel,
} from '../../training/engine/decoding/scripted-model.test-support.ts';
import { STORIES260K } from '../../training/engine/loading/stories.test-support.ts';

const dir = mkdtempSync(join(tmpdir(), 'rlm-local-process-'));
const processes = localModelProcesses();
afterAll(async () => {
  await processes.dispose();
  rmSync(dir, { recursive: true, force: true });
});
const SCRIPT = LOCAL_RLM_SCRIPT;
const { model } = writeScriptedModel(dir, SCRIPT);
const env = { RLM_STUDIO_BACKEND: 'wasm' };

const inChild = (path: string): Promise<Provider> =>
  createProvider(`local:${path}`, { factories: { local: processes.factory }, env });
const inProcess = (path: string): Promise<Provider> =>
  createProvider(`local:${path}`, { factories: { local: inProcessLocalModels() }, env });

const ask = (turn: number, extra: Partial<CompletionRequest> = {}): CompletionRequest => ({
  messages: [{ role: 'user', content: `question ${turn}` }],
  agentId: '0',
  turn,
  ...extra,
});
const same = ({ latencyMs: _latency, ...rest }: { latencyMs: number }) => rest;

describe('local: in its own process', () => {
  it('answers as the model does in process: text, deltas, usage, stop strings, batching', async () => {
    const child = await inChild(model);
    const local = await inProcess(model);
    const deltas: string[] = [];
    const requests = (onDelta?: (text: string) => void) => [
      ask(0, onDelta ? { onDelta } : {}),
      ask(1, { stop: ['print'] }),
      ask(2, { maxTokens: 2 }),
    ];
    const fromChild = await Promise.all(
      requests((text) => deltas.push(text)).map((request) => child.complete(request)),
    );
    const fromProcess = await Promise.all(requests().map((request) => local.complete(request)));
    expect(fromChild.map(same)).toEqual(fromProcess.map(same));
    expect(fromChild.map((c) => c.text)).toEqual([
      SCRIPT.join(''),
      '```repl\n',
      SCRIPT.slice(0, 2).join(''),
    ]);
    expect(deltas).toEqual(SCRIPT);
    expect(fromChild[2]?.finishReason).toBe('length');
  });

  it('samples what the model samples in process, seed for seed', async () => {
    const child = await inChild(STORIES260K.checkpoint);
    const local = await inProcess(STORIES260K.checkpoint);
    const request = ask(0, { temperature: 1, seed: 42, maxTokens: 24 });
    const [a, b] = [await child.complete(request), await local.complete(request)];
    expect(a.text.length).toBeGreaterThan(0);
    expect(same(a)).toEqual(same(b));
  });

  it('runs the RLM loop: the model writes code, the REPL runs it, FINAL answers', async () => {
    const provider = await inChild(model);
    const { outcome, ran } = await runRlmOnScript(provider, 'local-child-1');
    expect(outcome).toMatchObject({ status: 'done', answer: 'local' });
    expect(ran.map((code) => code.trim())).toEqual(["print('hello from a local model')"]);
  });

  it('cancels a generation in the child, which goes on serving', async () => {
    const provider = await inChild(STORIES260K.checkpoint);
    const controller = new AbortController();
    // The abort reaches the child right behind the request, before its first token.
    const cancelled = provider.complete(
      ask(0, { maxTokens: 200, temperature: 1, seed: 1, signal: controller.signal }),
    );
    controller.abort();
    await expect(cancelled).rejects.toMatchObject({ name: 'GenerationAbortedError' });
    const after = await provider.complete(ask(1, { maxTokens: 4 }));
    expect(after.usage.outputTokens).toBeGreaterThan(0);
  });

  it('names a missing model file, and a later run with a good one works', async () => {
    const missing = join(dir, 'nope.bin');
    const failure = (made: Promise<Provider>) =>
      made.then(
        () => new Error('the provider was made'),
        (error: unknown) => (error instanceof Error ? error : new Error(String(error))),
      );
    const inProcessError = await failure(inProcess(missing));
    const childError = await failure(inChild(missing));
    expect(inProcessError.message).toMatch(/nope\.bin/);
    expect({ name: childError.name, message: childError.message }).toEqual({
      name: inProcessError.name,
      message: inProcessError.message,
    });
    await expect(
      Promise.resolve().then(() => processes.factory(' ', { spec: 'local: ', env, options: {} })),
    ).rejects.toMatchObject({ name: 'LocalModelProcessError' });
    expect((await (await inChild(model)).complete(ask(0))).text).toBe(SCRIPT.join(''));
  });

  it('fails what was in flight when the process dies, by name, and starts a new one after', async () => {
    const own = localModelProcesses();
    try {
      const factory = { local: own.factory };
      const provider = await createProvider(`local:${STORIES260K.checkpoint}`, {
        factories: factory,
        env,
      });
      let killed = false;
      const pending = provider.complete(
        ask(0, {
          maxTokens: 200,
          temperature: 1,
          seed: 3,
          onDelta: () => {
            if (killed) return;
            killed = true;
            (provider as unknown as { child: { kill(): void } }).child.kill();
          },
        }),
      );
      await expect(pending).rejects.toMatchObject({
        name: 'LocalModelProcessError',
        message: expect.stringMatching(/the local model process exited \(SIGKILL\)/) as unknown,
      });
      await expect(provider.complete(ask(1))).rejects.toMatchObject({
        name: 'LocalModelProcessError',
      });
      const again = await createProvider(`local:${STORIES260K.checkpoint}`, {
        factories: factory,
        env,
      });
      expect((await again.complete(ask(2, { maxTokens: 4 }))).usage.outputTokens).toBeGreaterThan(
        0,
      );
    } finally {
      await own.dispose();
    }
  });
});
