// stories260K through the plain-JS CPU decoder against llama2.c's own outputs, byte for byte.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CpuDecoder } from './cpu-decoder.ts';
import { CheckpointFormatError, TokenizerFormatError } from '../errors.ts';
import { generate } from './generate.ts';
import {
  parseLlama2cCheckpoint,
  readLlama2cCheckpoint,
  serializeLlama2cCheckpoint,
} from '../loading/llama2c-checkpoint.ts';
import { Llama2cTokenizer } from '../loading/llama2c-tokenizer.ts';
import {
  STORIES260K,
  storiesReference,
  storiesTokenizer,
} from '../loading/stories.test-support.ts';

describe('llama2.c checkpoint and tokenizer', () => {
  it('reads stories260K', () => {
    const model = readLlama2cCheckpoint(STORIES260K.checkpoint);
    expect(model.config).toMatchObject({
      dim: 64,
      hiddenDim: 172,
      nLayers: 5,
      nHeads: 8,
      nKvHeads: 4,
      vocabSize: 512,
      maxSeqLen: 512,
      tiedEmbeddings: true,
    });
    expect(model.weights.lmHead).toBe(model.weights.tokenEmbedding);
  });

  it('writes what it reads, bit for bit', () => {
    const bytes = readFileSync(STORIES260K.checkpoint);
    const model = parseLlama2cCheckpoint(bytes);
    const again = serializeLlama2cCheckpoint(model);
    // The rotary tables run.c ignores are written as zeros; everything else is identical.
    const weightsEnd = bytes.length - model.config.maxSeqLen * model.config.headDim * 4;
    expect(Buffer.from(again.subarray(0, weightsEnd)).equals(bytes.subarray(0, weightsEnd))).toBe(
      true,
    );
  });

  it('names a truncated checkpoint and a short tokenizer', () => {
    const bytes = readFileSync(STORIES260K.checkpoint);
    expect(() => parseLlama2cCheckpoint(bytes.subarray(0, 1000), 'cut.bin')).toThrow(
      CheckpointFormatError,
    );
    expect(() => readLlama2cCheckpoint(join(STORIES260K.dir, 'missing.bin'))).toThrow(
      CheckpointFormatError,
    );
    const tok = readFileSync(STORIES260K.tokenizer);
    expect(() => Llama2cTokenizer.parse(tok.subarray(0, 300), 'tok.bin', 512)).toThrow(
      TokenizerFormatError,
    );
  });

  it('encodes as run.c does: BOS, dummy prefix, merges', () => {
    const tokenizer = storiesTokenizer();
    const ids = tokenizer.encode('Once upon a time');
    expect(ids[0]).toBe(1);
    const text = ids
      .slice(1)
      .map((id, i) => Buffer.from(tokenizer.decodeNext(i === 0 ? 1 : (ids[i] ?? 0), id)).toString())
      .join('');
    expect(text).toBe('Once upon a time');
    expect(tokenizer.encode('')).toEqual([1]);
    // A character outside the vocabulary falls back to its UTF-8 bytes (id = byte + 3).
    const snow = tokenizer.encode('☃', { addBos: false });
    expect(snow.slice(-3)).toEqual([0xe2 + 3, 0x98 + 3, 0x83 + 3]);
  });
});

describe('stories260K on the CPU decoder equals llama2.c', () => {
  const model = readLlama2cCheckpoint(STORIES260K.checkpoint);
  const tokenizer = storiesTokenizer();
  for (const ref of storiesReference()) {
    it(ref.name, async () => {
      const decoder = new CpuDecoder(model);
      const [out] = await generate(decoder, tokenizer, [ref.prompt], ref.options);
      expect((out?.echo ?? '') + (out?.text ?? '') + '\n').toBe(ref.expected);
    });
  }
});
