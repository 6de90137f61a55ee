// Qwen3.5 on jax-js, wasm and WebGPU (SwiftShader without a GPU): the jitted decode step (Gated
// DeltaNet conv and recurrent state per slot, gated attention with partial rotary) and the
// training forward (the chunked delta rule) against the float64 reference written from Hugging
// Face's modeling code; batches of different lengths against each sequence alone.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { numpy as np } from '@jax-js/jax';
import { afterAll, describe, expect, it } from 'vitest';
import { startBackend } from '../kernels/backend.ts';
import { ropeTables } from '../kernels/rope.ts';
import { webGpuUnavailable } from '../kernels/webgpu.test-support.ts';
import { loadHfDecoderModel } from '../loading/hf-model.ts';
import { relativeError } from '../loading/hf-reference.test-support.ts';
import {
  QWEN35_CASES,
  qwen35ReferenceLogits,
  TINY_QWEN35,
  tinyQwen35Tensors,
  writeTinyQwen35,
} from '../loading/qwen35-reference.test-support.ts';
import type { DecoderModel } from '../loading/weights.ts';
import { sequenceLogits } from '../training/sequence-forward.ts';
import { createDecoder } from './create-decoder.ts';
import { uploadWeights } from '../kernels/jax-weights.ts';
import { JaxDecoder } from './jax-decoder.ts';

const root = mkdtempSync(join(tmpdir(), 'rlm-jax-qwen35-'));
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

const tokens = [5, 17, 200, 3, 99, 42, 262, 7, 128, 64, 1, 250, 31, 77, 150, 9, 222, 11, 4];
const noGpu = await webGpuUnavailable();

const folders = QWEN35_CASES.map((testCase, i) => {
  const folder = join(root, `case-${i}`);
  const tensors = tinyQwen35Tensors(testCase.spec, 60 + i);
  writeTinyQwen35(folder, testCase.spec, tensors, testCase.options);
  return { ...testCase, folder, tensors };
});

async function stepwise(
  decoder: JaxDecoder,
  ids: readonly number[],
  slot = 0,
): Promise<Float32Array[]> {
  const out: Float32Array[] = [];
  for (const [pos, token] of ids.entries()) out.push(await decoder.step([{ slot, token, pos }]));
  return out;
}

/** The training forward's logits [T][vocab] for one sequence. */
async function forwardLogits(
  model: DecoderModel,
  ids: readonly number[],
  dtype: np.DType,
  deltaChunk: number,
): Promise<number[][]> {
  const T = ids.length;
  // sequenceLogits consumes the weights it reads.
  const weights = uploadWeights(model, dtype);
  const tables = ropeTables(model.config, T, dtype === np.float64 ? 'f64' : 'f32');
  const up = (a: ArrayLike<number>, shape: number[]) =>
    dtype === np.float64
      ? np.array(Float64Array.from(a), { shape, dtype })
      : np.array(Float32Array.from(a), { shape });
  const logits = sequenceLogits(
    model.config,
    weights,
    null,
    0,
    {
      tokens: np.array(Int32Array.from(ids), { shape: [1, T], dtype: np.int32 }),
      cos: up(tables.cos, [T, tables.half]),
      sin: up(tables.sin, [T, tables.half]),
    },
    { deltaChunk },
  );
  const data = (await logits.data()) as ArrayLike<number>;
  const vocab = model.config.vocabSize;
  return Array.from({ length: T }, (_, t) =>
    Array.from({ length: vocab }, (_, v) => data[t * vocab + v] ?? NaN),
  );
}

for (const backend of ['wasm', 'webgpu'] as const) {
  const skip = backend === 'webgpu' ? noGpu : null;
  describe.skipIf(skip !== null)(
    `Qwen3.5 on jax-js ${backend}${skip ? ` (skipped: ${skip})` : ''}`,
    () => {
      for (const testCase of folders) {
        it(`decode step by step equals the float64 reference: ${testCase.name}`, async () => {
          await startBackend(backend);
          const { model } = loadHfDecoderModel(testCase.folder);
          const reference = qwen35ReferenceLogits(testCase.spec, testCase.tensors, tokens);
          const decoder = new JaxDecoder(model, backend, { maxSeqLen: 32 });
          try {
            expect(relativeError(await stepwise(decoder, tokens), reference)).toBeLessThan(1e-4);
          } finally {
            decoder.dispose();
          }
        }, 120_000);
      }

      it('the training forward (chunks of 4 and 16, a length neither divides) equals the reference', async () => {
        await startBackend(backend);
        const testCase = folders[0];
        if (!testCase) throw new Error('no case');
        const { model } = loadHfDecoderModel(testCase.folder);
        const reference = qwen35ReferenceLogits(testCase.spec, testCase.tensors, tokens);
        for (const chunk of [4, 16]) {
          const logits = await forwardLogits(model, tokens, np.float32, chunk);
          expect(relativeError(logits, reference)).toBeLessThan(1e-4);
        }
        if (backend === 'wasm') {
          // float64 (what the gradient checks run in) agrees far closer.
          const exact = await forwardLogits(model, tokens, np.float64, 4);
          expect(relativeError(exact, reference)).toBeLessThan(1e-9);
        }
      }, 120_000);

      it('batched decoding with different prompt lengths equals each alone; a restarted slot forgets', async () => {
        await startBackend(backend);
        const folder = join(root, 'batch');
        const tensors = tinyQwen35Tensors(TINY_QWEN35, 3);
        writeTinyQwen35(folder, TINY_QWEN35, tensors, { layout: 'causal' });
        const { model } = loadHfDecoderModel(folder);
        const prompts = [tokens.slice(0, 5), tokens.slice(3, 15), tokens.slice(7, 9)];
        const single = new JaxDecoder(model, backend, { maxSeqLen: 32 });
        const batched = new JaxDecoder(model, backend, { maxSeqLen: 32, maxBatch: 3 });
        try {
          const alone: Float32Array[][] = [];
          for (const p of prompts) alone.push(await stepwise(single, p));
          const together: Float32Array[][] = [[], [], []];
          const vocab = model.config.vocabSize;
          const longest = Math.max(...prompts.map((p) => p.length));
          for (let pos = 0; pos < longest; pos++) {
            const inputs = prompts.flatMap((p, slot) =>
              pos < p.length ? [{ slot, token: p[pos] ?? 0, pos }] : [],
            );
            const logits = await batched.step(inputs);
            inputs.forEach((input, k) =>
              together[input.slot]?.push(logits.slice(k * vocab, (k + 1) * vocab)),
            );
          }
          prompts.forEach((_, slot) => {
            const a = alone[slot] ?? [];
            expect(
              relativeError(
                together[slot] ?? [],
                a.map((row) => Array.from(row)),
              ),
            ).toBeLessThan(1e-5);
          });
          // Slot 1 starts over with the third prompt: its old state must not leak in.
          const again = await stepwise(batched, prompts[2] ?? [], 1);
          expect(
            relativeError(
              again,
              (alone[2] ?? []).map((row) => Array.from(row)),
            ),
          ).toBeLessThan(1e-5);
        } finally {
          single.dispose();
          batched.dispose();
        }
      }, 120_000);
    },
  );
}

describe.skipIf(noGpu !== null)(
  `a bf16 Qwen3.5 checkpoint on WebGPU${noGpu ? ` (skipped: ${noGpu})` : ''}`,
  () => {
    it('stays f16 on the device where shader-f16 exists, else says it falls back to f32', async () => {
      const info = await startBackend('webgpu');
      const testCase = folders.find((f) => f.options.dtype === 'BF16');
      if (!testCase) throw new Error('no bf16 case');
      const { model } = loadHfDecoderModel(testCase.folder);
      expect(model.storedAs).toBe('bf16');
      const decoder = createDecoder(model, info, { maxSeqLen: 32 });
      try {
        const reference = qwen35ReferenceLogits(testCase.spec, testCase.tensors, tokens);
        const logits: Float32Array[] = [];
        for (const [pos, token] of tokens.entries()) {
          logits.push(await decoder.step([{ slot: 0, token, pos }]));
        }
        if (info.shaderF16) {
          expect(decoder.implementation).toContain('f16');
          // f16 keeps about three decimal digits; the DeltaNet state stays f32.
          expect(relativeError(logits, reference)).toBeLessThan(2e-2);
        } else {
          expect(decoder.implementation).toContain('f32');
          expect(decoder.notes.join(' ')).toMatch(/bf16; this WebGPU device has no shader-f16/);
          expect(relativeError(logits, reference)).toBeLessThan(1e-4);
        }
      } finally {
        decoder.dispose();
      }
    }, 120_000);
  },
);
