// Hugging Face folders: tiny random Llama, Qwen2 and Qwen3 models saved as safetensors (f32, f16,
// bf16, sharded), loaded back and run through the CPU and jax-js (wasm) decoders; logits against a
// float64 forward pass written from Hugging Face's modeling code; named errors for bad folders.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startBackend } from '../kernels/backend.ts';
import { CpuDecoder } from '../decoding/cpu-decoder.ts';
import type { Decoder } from '../decoding/decoder.ts';
import { MissingModelFileError, ShapeMismatchError, UnknownArchitectureError } from '../errors.ts';
import { generate } from '../decoding/generate.ts';
import { writeHfModel } from './hf-export.ts';
import { loadHfDecoderModel } from './hf-model.ts';
import { referenceLogits, relativeError, tinyRandomModel } from './hf-reference.test-support.ts';
import { writeTinyTokenizer } from './hf-tokenizer.test-support.ts';
import { JaxDecoder } from '../decoding/jax-decoder.ts';
import { loadLocalModel } from './local-model.ts';
import type { DecoderConfig } from './model-config.ts';

const root = mkdtempSync(join(tmpdir(), 'rlm-hf-'));
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

const base: DecoderConfig = {
  family: 'llama',
  dim: 32,
  hiddenDim: 48,
  nLayers: 2,
  nHeads: 4,
  nKvHeads: 2,
  headDim: 8,
  vocabSize: 263,
  maxSeqLen: 64,
  normEps: 1e-6,
  ropeTheta: 10000,
  ropeScaling: { kind: 'none' },
  ropeStyle: 'half',
  tiedEmbeddings: false,
  attentionBias: false,
  qkNorm: false,
};

const cases: {
  name: string;
  config: DecoderConfig;
  dtype: 'F32' | 'F16' | 'BF16';
  shards: number;
}[] = [
  {
    name: 'Llama, GQA, untied, llama3 rope scaling, f32',
    config: {
      ...base,
      ropeScaling: {
        kind: 'llama3',
        factor: 8,
        lowFreqFactor: 1,
        highFreqFactor: 4,
        originalMaxPositions: 16,
      },
      ropeTheta: 500000,
    },
    dtype: 'F32',
    shards: 1,
  },
  {
    name: 'Llama, f16, 3 shards',
    config: { ...base, nKvHeads: 4 },
    dtype: 'F16',
    shards: 3,
  },
  {
    name: 'Qwen2, q/k/v biases, tied, yarn, 2 shards',
    config: {
      ...base,
      family: 'qwen2',
      tiedEmbeddings: true,
      attentionBias: true,
      ropeTheta: 1000000,
      ropeScaling: {
        kind: 'yarn',
        factor: 4,
        originalMaxPositions: 16,
        betaFast: 32,
        betaSlow: 1,
        attentionFactor: 0.1 * Math.log(4) + 1,
      },
    },
    dtype: 'F32',
    shards: 2,
  },
  {
    name: 'Qwen3, q/k norms, head_dim 12 != hidden/heads, linear scaling, bf16',
    config: {
      ...base,
      family: 'qwen3',
      headDim: 12,
      qkNorm: true,
      ropeScaling: { kind: 'linear', factor: 2 },
    },
    dtype: 'BF16',
    shards: 1,
  },
];

async function logitsOf(decoder: Decoder, tokens: readonly number[]): Promise<Float32Array[]> {
  const out: Float32Array[] = [];
  for (const [pos, token] of tokens.entries()) {
    out.push(Float32Array.from(await decoder.step([{ slot: 0, token, pos }])));
  }
  return out;
}

const tokens = [5, 17, 200, 3, 99, 42, 262, 7, 128, 64, 1, 250];

describe('Hugging Face folders: logits against a float64 reference', () => {
  for (const [i, testCase] of cases.entries()) {
    it(
      testCase.name,
      async () => {
        const folder = join(root, `model-${i}`);
        const model = tinyRandomModel(testCase.config, 100 + i);
        writeHfModel(folder, model, { dtype: testCase.dtype, shards: testCase.shards });
        const { model: loaded, notes } = loadHfDecoderModel(folder);
        expect(loaded.config).toEqual({ ...testCase.config, family: testCase.config.family });
        if (testCase.dtype !== 'F32') expect(notes.join()).toMatch(/computed in f32/);
        const reference = referenceLogits(model, tokens);
        const cpu = relativeError(await logitsOf(new CpuDecoder(loaded), tokens), reference);
        expect(cpu).toBeLessThan(1e-4);
        await startBackend('wasm');
        const jax = new JaxDecoder(loaded, 'wasm', { maxSeqLen: 16 });
        try {
          expect(relativeError(await logitsOf(jax, tokens), reference)).toBeLessThan(1e-4);
        } finally {
          jax.dispose();
        }
      },
      60_000,
    );
  }
});

describe('Hugging Face folders: tokenizer, chat template, errors', () => {
  const folder = join(root, 'chat');
  const chatModel = { ...base, family: 'qwen2', attentionBias: true, tiedEmbeddings: true };
  writeHfModel(folder, tinyRandomModel(chatModel, 9));
  const vocabSize = writeTinyTokenizer(folder);

  it('encodes through transformers.js, decodes per token, renders the chat template', async () => {
    expect(vocabSize).toBe(base.vocabSize);
    const local = await loadLocalModel(folder);
    const ids = local.tokenizer.encode('hello the world', { addBos: false });
    // BPE merges by rank: h+e and l+l come before e+ll, so "hello" is he|ll|o; " the" is one.
    expect(ids.slice(0, 3)).toEqual([257, 259, 111]);
    expect(ids).toContain(258);
    let text = '';
    ids.forEach(
      (id, i) => (text += Buffer.from(local.tokenizer.decodeNext(ids[i - 1] ?? -1, id)).toString()),
    );
    expect(text).toBe('hello the world');
    expect(local.tokenizer.eos).toEqual([262]);
    const prompt = local.formatChat([
      { role: 'system', content: 'be brief' },
      { role: 'user', content: 'hi' },
    ]);
    expect(prompt).toBe('system: be brief\nuser: hi\nassistant:');
    const [out] = await generate(new CpuDecoder(local.model), local.tokenizer, [prompt], {
      maxNewTokens: 5,
      addBos: false,
    });
    expect(out?.tokens.length).toBeGreaterThan(0);
  });

  it('names an unknown architecture, a missing file and a shape mismatch', async () => {
    const config = { architectures: ['GPT2LMHeadModel'] };
    const bad = join(root, 'bad');
    writeHfModel(bad, tinyRandomModel(base, 3));
    writeFileSync(join(bad, 'config.json'), JSON.stringify(config));
    expect(() => loadHfDecoderModel(bad)).toThrow(UnknownArchitectureError);
    const noTokenizer = join(root, 'no-tokenizer');
    writeHfModel(noTokenizer, tinyRandomModel(base, 4));
    await expect(loadLocalModel(noTokenizer)).rejects.toThrow(MissingModelFileError);
    expect(() => loadHfDecoderModel(join(root, 'nowhere'))).toThrow(MissingModelFileError);
    const mismatch = join(root, 'mismatch');
    writeHfModel(mismatch, tinyRandomModel(base, 5));
    writeFileSync(
      join(mismatch, 'config.json'),
      JSON.stringify({
        ...JSON.parse(JSON.stringify({})),
        architectures: ['LlamaForCausalLM'],
        hidden_size: 32,
        intermediate_size: 40,
        num_hidden_layers: 2,
        num_attention_heads: 4,
        num_key_value_heads: 2,
        vocab_size: 263,
      }),
    );
    expect(() => loadHfDecoderModel(mismatch)).toThrow(ShapeMismatchError);
  });
});
