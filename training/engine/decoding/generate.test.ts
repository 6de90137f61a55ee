// Generation semantics over the CPU decoder with stories260K: batches equal single runs, stop
// strings cut (and never stream) their text, streaming adds up to the result, cancellation.
import { describe, expect, it } from 'vitest';
import { CpuDecoder } from './cpu-decoder.ts';
import { GenerationError } from '../errors.ts';
import { generate, GenerationAbortedError } from './generate.ts';
import { readLlama2cCheckpoint } from '../loading/llama2c-checkpoint.ts';
import { STORIES260K, storiesTokenizer } from '../loading/stories.test-support.ts';

const model = readLlama2cCheckpoint(STORIES260K.checkpoint);
const tokenizer = storiesTokenizer();

describe('generate', () => {
  it('decodes a batch as it decodes each prompt alone, greedy and seeded', async () => {
    const prompts = ['Zoo', 'Once upon a time', 'The cat'];
    const options = { maxNewTokens: 30, temperature: 0.8, topP: 0.9, seed: 7 };
    const batched = await generate(
      new CpuDecoder(model, { maxBatch: 3 }),
      tokenizer,
      prompts,
      options,
    );
    for (const [i, prompt] of prompts.entries()) {
      const [alone] = await generate(new CpuDecoder(model), tokenizer, [prompt], {
        ...options,
        seed: options.seed + i,
      });
      expect(batched[i]?.text).toBe(alone?.text);
      expect(batched[i]?.tokens).toHaveLength(30);
      expect(batched[i]?.finishReason).toBe('length');
    }
  });

  it('prefills a long prompt in chunks with the result of one position per step', async () => {
    const prompt =
      'Once upon a time, there was a little dog named Max. Max liked to run in the park with his ball.';
    const ids = tokenizer.encode(prompt);
    expect(ids.length).toBeGreaterThan(20);
    const [chunked] = await generate(new CpuDecoder(model), tokenizer, [prompt], {
      maxNewTokens: 20,
    });
    const single = new CpuDecoder(model);
    let logits: Float32Array = new Float32Array(0);
    for (const [pos, token] of ids.entries()) logits = single.stepSync([{ slot: 0, token, pos }]);
    const tokens: number[] = [];
    for (let pos = ids.length; tokens.length < 20; pos++) {
      const next = logits.indexOf(Math.max(...logits));
      if (next === 1) break;
      tokens.push(next);
      logits = single.stepSync([{ slot: 0, token: next, pos }]);
    }
    expect(chunked?.tokens).toEqual(tokens);
  });

  it('stops at a stop string, without returning or streaming it', async () => {
    const chunks: string[] = [];
    const [out] = await generate(new CpuDecoder(model), tokenizer, ['Once upon a time'], {
      maxNewTokens: 100,
      stop: ['Lily'],
      onText: (_seq, text) => chunks.push(text),
    });
    expect(out?.text).toBe(', there was a little girl named ');
    expect(out?.finishReason).toBe('stop');
    expect(chunks.join('')).toBe(out?.text);
  });

  it('streams exactly the text it returns', async () => {
    let streamed = '';
    const [out] = await generate(new CpuDecoder(model), tokenizer, [''], {
      maxNewTokens: 40,
      onText: (_seq, text) => (streamed += text),
    });
    expect(streamed).toBe(out?.text);
    expect(out?.text.startsWith('Once upon a time')).toBe(true);
  });

  it('is cancelled by its signal and rejects oversized requests', async () => {
    const controller = new AbortController();
    const run = generate(new CpuDecoder(model), tokenizer, ['Zoo'], {
      maxNewTokens: 100,
      signal: controller.signal,
      onText: () => {
        controller.abort();
      },
    });
    await expect(run).rejects.toThrow(GenerationAbortedError);
    await expect(generate(new CpuDecoder(model), tokenizer, ['a', 'b'], {})).rejects.toThrow(
      GenerationError,
    );
    await expect(
      generate(new CpuDecoder(model, { maxSeqLen: 4 }), tokenizer, ['Once upon a time there'], {}),
    ).rejects.toThrow(/context holds 4/);
  });
});
