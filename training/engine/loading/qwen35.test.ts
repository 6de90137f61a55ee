// Qwen3.5 folders: tiny random hybrid models (Gated DeltaNet + gated attention) written in both
// layouts, f32/bf16/f16, sharded, loaded back; every position's logits against a float64 forward
// pass written from Hugging Face's modeling_qwen3_5.py; the decoder's recurrence against the
// parallel form, prefill in pieces, batches; named errors for bad folders.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CpuDecoder } from '../decoding/cpu-decoder.ts';
import {
  GenerationError,
  MissingModelFileError,
  ShapeMismatchError,
  UnsupportedModelError,
} from '../errors.ts';
import { loadHfDecoderModel } from './hf-model.ts';
import { relativeError } from './hf-reference.test-support.ts';
import { Bf16Array } from './bf16.ts';
import { WeightArenas } from '../kernels/weight-arenas.ts';
import {
  qwen35ReferenceLogits,
  TINY_QWEN35,
  tinyQwen35Tensors,
  writeTinyQwen35,
  QWEN35_CASES,
} from './qwen35-reference.test-support.ts';

const root = mkdtempSync(join(tmpdir(), 'rlm-qwen35-'));
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

const tokens = [5, 17, 200, 3, 99, 42, 262, 7, 128, 64, 1, 250, 31, 77, 150, 9, 222, 11, 4];

function stepwise(decoder: CpuDecoder, ids: readonly number[], slot = 0): Float32Array[] {
  return ids.map((token, pos) => Float32Array.from(decoder.stepSync([{ slot, token, pos }])));
}

describe('Qwen3.5: logits against a float64 reference from Hugging Face modeling code', () => {
  it("the reference's chunked delta rule (chunks of 4 and 64) equals its recurrence", () => {
    const tensors = tinyQwen35Tensors(TINY_QWEN35, 7);
    const recurrent = qwen35ReferenceLogits(TINY_QWEN35, tensors, tokens, {
      deltaRule: 'recurrent',
    });
    for (const chunkSize of [4, 64]) {
      const chunked = qwen35ReferenceLogits(TINY_QWEN35, tensors, tokens, { chunkSize });
      expect(relativeError(chunked, recurrent)).toBeLessThan(1e-12);
    }
  });

  for (const [i, testCase] of QWEN35_CASES.entries()) {
    it(testCase.name, () => {
      const folder = join(root, `case-${i}`);
      const tensors = tinyQwen35Tensors(testCase.spec, 40 + i);
      writeTinyQwen35(folder, testCase.spec, tensors, testCase.options);
      const { model } = loadHfDecoderModel(folder);
      expect(model.config.family).toBe('qwen3_5');
      expect(model.config.hybrid?.layerTypes).toEqual(testCase.spec.layerTypes);
      expect(model.config.tiedEmbeddings).toBe(testCase.spec.tied);
      const reference = qwen35ReferenceLogits(testCase.spec, tensors, tokens);
      for (const simd of [true, false]) {
        const decoder = new CpuDecoder(model, { simd });
        expect(relativeError(stepwise(decoder, tokens), reference)).toBeLessThan(1e-4);
      }
      // Loaded straight into a decoder's WebAssembly memory: bf16 stays bf16 there.
      const arenas = WeightArenas.create();
      if (!arenas) throw new Error('WebAssembly SIMD is unavailable');
      const placed = loadHfDecoderModel(folder, { store: arenas });
      const bf16 = testCase.options.dtype === 'BF16';
      expect(placed.model.weights.layers[0]?.w1 instanceof Bf16Array).toBe(bf16);
      expect(placed.notes.join('; ')).toMatch(bf16 ? /bf16 weights stay bf16/ : /weights take/);
      const inPlace = new CpuDecoder(placed.model, { arenas });
      expect(inPlace.implementation).toContain(bf16 ? 'bf16 weights' : 'f32');
      expect(relativeError(stepwise(inPlace, tokens), reference)).toBeLessThan(1e-4);
    });
  }
});

describe('Qwen3.5 decoding: recurrence, pieces, batches', () => {
  const folder = join(root, 'decode');
  const tensors = tinyQwen35Tensors(TINY_QWEN35, 3);
  writeTinyQwen35(folder, TINY_QWEN35, tensors, { layout: 'causal' });
  const { model } = loadHfDecoderModel(folder);
  const reference = qwen35ReferenceLogits(TINY_QWEN35, tensors, tokens);

  it('prefill in pieces of 1, 7 and 16 gives the logits of the whole sequence', () => {
    for (const piece of [1, 7, 16]) {
      const decoder = new CpuDecoder(model);
      const out: Float32Array[] = [];
      for (let start = 0; start < tokens.length; start += piece) {
        const inputs = tokens
          .slice(start, start + piece)
          .map((token, k) => ({ slot: 0, token, pos: start + k }));
        const logits = decoder.stepSync(inputs);
        inputs.forEach((_, k) =>
          out.push(
            Float32Array.from(
              logits.subarray(k * model.config.vocabSize, (k + 1) * model.config.vocabSize),
            ),
          ),
        );
      }
      expect(relativeError(out, reference)).toBeLessThan(1e-4);
    }
  });

  it("a step that skips some positions' logits gives the others in their rows, unchanged", () => {
    const vocab = model.config.vocabSize;
    const a = tokens.slice(0, 7);
    const b = tokens.slice(9, 13);
    const aloneA = stepwise(new CpuDecoder(model), a);
    const aloneB = stepwise(new CpuDecoder(model), b);
    const decoder = new CpuDecoder(model, { maxBatch: 2 });
    // Slot 0 wants only its last position, slot 1 its second and last: rows 6, 8 and 10.
    const inputs = [
      ...a.map((token, pos) => ({ slot: 0, token, pos, skipLogits: pos < a.length - 1 })),
      ...b.map((token, pos) => ({ slot: 1, token, pos, skipLogits: pos !== 1 && pos !== 3 })),
    ];
    const logits = decoder.stepSync(inputs);
    const expectRow = (r: number, expected: Float32Array | undefined) => {
      const got = logits.subarray(r * vocab, (r + 1) * vocab);
      expect(relativeError([got], [Array.from(expected ?? [])])).toBeLessThan(1e-6);
    };
    expectRow(6, aloneA[6]);
    expectRow(8, aloneB[1]);
    expectRow(10, aloneB[3]);
  });

  it('batched decoding with different prompt lengths equals each sequence alone', () => {
    const prompts = [tokens.slice(0, 5), tokens.slice(3, 15), tokens.slice(7, 9)];
    const alone = prompts.map((p) => stepwise(new CpuDecoder(model), p));
    const decoder = new CpuDecoder(model, { maxBatch: 3 });
    const together: Float32Array[][] = [[], [], []];
    const longest = Math.max(...prompts.map((p) => p.length));
    for (let pos = 0; pos < longest; pos++) {
      const inputs = prompts.flatMap((p, slot) =>
        pos < p.length ? [{ slot, token: p[pos] ?? 0, pos }] : [],
      );
      const logits = decoder.stepSync(inputs);
      inputs.forEach((input, k) =>
        together[input.slot]?.push(
          Float32Array.from(
            logits.subarray(k * model.config.vocabSize, (k + 1) * model.config.vocabSize),
          ),
        ),
      );
    }
    prompts.forEach((_, slot) => {
      const a = alone[slot] ?? [];
      const b = together[slot] ?? [];
      expect(b.length).toBe(a.length);
      expect(
        relativeError(
          b,
          a.map((row) => Array.from(row)),
        ),
      ).toBeLessThan(1e-6);
    });
  });

  it('a slot restarted at 0 forgets the old sequence; skipping a position is a named error', () => {
    const decoder = new CpuDecoder(model);
    stepwise(decoder, tokens.slice(0, 6));
    expect(relativeError(stepwise(decoder, tokens), reference)).toBeLessThan(1e-4);
    expect(() => decoder.stepSync([{ slot: 0, token: 1, pos: 3 }])).toThrow(GenerationError);
  });
});

describe('Qwen3.5 folders: named errors', () => {
  it('names an unknown layer type, a missing tensor, a shape mismatch and a vision-only folder', () => {
    const spec = TINY_QWEN35;
    const tensors = tinyQwen35Tensors(spec, 5);
    const unknown = join(root, 'unknown-type');
    writeTinyQwen35(unknown, spec, tensors, { layout: 'causal' });
    const config = JSON.parse(readFileSync(join(unknown, 'config.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    writeFileSync(
      join(unknown, 'config.json'),
      JSON.stringify({
        ...config,
        layer_types: ['linear_attention', 'sliding_attention', 'full_attention'],
      }),
    );
    expect(() => loadHfDecoderModel(unknown)).toThrow(/layer 1 is of type 'sliding_attention'/);

    const missing = join(root, 'missing');
    const without = new Map(tensors);
    without.delete('layers.1.linear_attn.A_log');
    writeTinyQwen35(missing, spec, without, { layout: 'conditional' });
    expect(() => loadHfDecoderModel(missing)).toThrow(MissingModelFileError);
    expect(() => loadHfDecoderModel(missing)).toThrow(
      /model\.language_model\.layers\.1\.linear_attn\.A_log/,
    );

    const mismatch = join(root, 'mismatch');
    writeTinyQwen35(
      mismatch,
      { ...spec, linearValueHeadDim: 5 },
      tinyQwen35Tensors({ ...spec, linearValueHeadDim: 5 }, 5),
      {
        layout: 'causal',
      },
    );
    const c = JSON.parse(readFileSync(join(mismatch, 'config.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    writeFileSync(
      join(mismatch, 'config.json'),
      JSON.stringify({ ...c, linear_value_head_dim: 6 }),
    );
    expect(() => loadHfDecoderModel(mismatch)).toThrow(ShapeMismatchError);

    const vision = join(root, 'vision-only');
    writeTinyQwen35(vision, spec, new Map(), { layout: 'conditional', extras: true });
    expect(() => loadHfDecoderModel(vision)).toThrow(UnsupportedModelError);
    const visionConfig = join(root, 'vision-config-only');
    writeTinyQwen35(visionConfig, spec, tensors, { layout: 'conditional' });
    const vc = JSON.parse(readFileSync(join(visionConfig, 'config.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    delete vc.text_config;
    writeFileSync(join(visionConfig, 'config.json'), JSON.stringify(vc));
    expect(() => loadHfDecoderModel(visionConfig)).toThrow(/only a vision model/);
  });
});
