// A tiny random Qwen3.5 folder (weights, tokenizer, a Qwen-style chat template in
// chat_template.jinja that opens a thinking block) served as `local:PATH`: an RLM run goes end to
// end on the model's own greedy output, whatever it is, and the replies carry the <think> tag the
// template opened.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createProvider } from '../../../app/models/index.ts';
import { loadLocalModel } from '../loading/local-model.ts';
import { writeTinyQwen35Chat } from '../loading/qwen35-reference.test-support.ts';
import { localProviderFactory } from './local-provider-factory.ts';
import { runRlmOnScript } from './scripted-model.test-support.ts';

const dir = mkdtempSync(join(tmpdir(), 'rlm-local-qwen35-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const folder = join(dir, 'qwen35-tiny');
writeTinyQwen35Chat(folder, 11);

describe('local: a Qwen3.5 folder', () => {
  it('renders the chat template from chat_template.jinja, thinking tag included', async () => {
    const local = await loadLocalModel(folder);
    expect(local.model.config.family).toBe('qwen3_5');
    expect(local.formatChat([{ role: 'user', content: 'hi' }])).toBe(
      '<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n<think>\n',
    );
    expect(local.tokenizer.eos).toEqual([262]);
  });

  it('runs an RLM end to end on its own greedy output', async () => {
    const provider = await createProvider(`local:${folder}`, {
      factories: { local: localProviderFactory({ maxSeqLen: 192 }) },
      env: { RLM_STUDIO_BACKEND: 'wasm' },
    });
    const { outcome, events } = await runRlmOnScript(provider, 'qwen35-local');
    const replies = events.flatMap((e) => (e.kind === 'model.done' ? [e] : []));
    expect(replies.length).toBeGreaterThan(0);
    for (const reply of replies) {
      expect(reply.text.startsWith('<think>\n')).toBe(true);
      expect(reply.usage.outputTokens).toBeGreaterThan(0);
    }
    // Random weights write nonsense: the run ends on its turn budget or with what it wrote.
    expect(['done', 'failed']).toContain(outcome.status);
  }, 120_000);
});
