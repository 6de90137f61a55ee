// stories260K through the jitted jax-js step: llama2.c's greedy outputs on wasm and on WebGPU
// (SwiftShader without a GPU), and the same logits as the plain-JS decoder for a batch.
import { afterAll, describe, expect, it } from 'vitest';
import { startBackend } from '../kernels/backend.ts';
import { CpuDecoder } from './cpu-decoder.ts';
import { generate } from './generate.ts';
import { JaxDecoder } from './jax-decoder.ts';
import { readLlama2cCheckpoint } from '../loading/llama2c-checkpoint.ts';
import {
  STORIES260K,
  storiesReference,
  storiesTokenizer,
} from '../loading/stories.test-support.ts';
import { webGpuUnavailable } from '../kernels/webgpu.test-support.ts';

const model = readLlama2cCheckpoint(STORIES260K.checkpoint);
const tokenizer = storiesTokenizer();
const greedy = storiesReference().filter((ref) => ref.options.temperature === 0);
const noGpu = await webGpuUnavailable();

for (const backend of ['wasm', 'webgpu'] as const) {
  const skip = backend === 'webgpu' ? noGpu : null;
  describe.skipIf(skip !== null)(
    `stories260K on jax-js ${backend}${skip ? ` (skipped: ${skip})` : ''}`,
    () => {
      let decoder: JaxDecoder | undefined;
      afterAll(() => {
        decoder?.dispose();
      });

      for (const ref of greedy) {
        it(`equals llama2.c: ${ref.name}`, async () => {
          await startBackend(backend);
          decoder?.dispose();
          decoder = new JaxDecoder(model, backend, { maxSeqLen: ref.options.steps ?? 64 });
          const [out] = await generate(decoder, tokenizer, [ref.prompt], ref.options);
          expect((out?.echo ?? '') + (out?.text ?? '') + '\n').toBe(ref.expected);
        }, 180_000);
      }

      it('decodes a batch of two slots with the logits of the CPU decoder', async () => {
        await startBackend(backend);
        const jaxDecoder = new JaxDecoder(model, backend, { maxSeqLen: 16, maxBatch: 2 });
        const cpu = new CpuDecoder(model, { maxSeqLen: 16, maxBatch: 2 });
        try {
          const prompts = [tokenizer.encode('Zoo'), tokenizer.encode('Once upon')];
          let maxDiff = 0;
          for (let pos = 0; pos < 4; pos++) {
            const inputs = prompts.map((ids, slot) => ({ slot, pos, token: ids[pos] ?? 0 }));
            // Slot 1 skips position 2 and 3: its cache must not be touched by slot 0's steps.
            const active = pos < 2 ? inputs : inputs.slice(0, 1);
            const a = await jaxDecoder.step(active);
            const b = cpu.stepSync(active);
            for (let i = 0; i < a.length; i++)
              maxDiff = Math.max(maxDiff, Math.abs((a[i] ?? 0) - (b[i] ?? 0)));
          }
          const last = [{ slot: 1, pos: 2, token: prompts[1]?.[2] ?? 0 }];
          const a = await jaxDecoder.step(last);
          const b = cpu.stepSync(last);
          for (let i = 0; i < a.length; i++)
            maxDiff = Math.max(maxDiff, Math.abs((a[i] ?? 0) - (b[i] ?? 0)));
          expect(maxDiff).toBeLessThan(1e-3);
        } finally {
          jaxDecoder.dispose();
          cpu.dispose();
        }
      }, 120_000);
    },
  );
}

describe.skipIf(noGpu !== null)(`f16 on WebGPU${noGpu ? ` (skipped: ${noGpu})` : ''}`, () => {
  it('runs in f16 where the device has shader-f16, else says it falls back to f32', async () => {
    const info = await startBackend('webgpu');
    const f16 = new JaxDecoder(model, 'webgpu', {
      maxSeqLen: 16,
      precision: 'f16',
      shaderF16: info.shaderF16,
    });
    const f32 = new JaxDecoder(model, 'webgpu', { maxSeqLen: 16 });
    try {
      if (!info.shaderF16) {
        expect(f16.implementation).toContain('f32');
        expect(f16.notes.join()).toMatch(/no shader-f16/);
      } else {
        expect(f16.implementation).toContain('f16');
      }
      const ids = tokenizer.encode('Once upon a time');
      let worst = 0;
      for (const [pos, token] of ids.entries()) {
        const a = await f16.step([{ slot: 0, token, pos }]);
        const b = await f32.step([{ slot: 0, token, pos }]);
        const scale = Math.max(...b.map(Math.abs));
        for (let i = 0; i < a.length; i++) {
          worst = Math.max(worst, Math.abs((a[i] ?? 0) - (b[i] ?? 0)) / scale);
        }
      }
      // f16 keeps about three decimal digits; the fallback is f32 itself.
      expect(worst).toBeLessThan(info.shaderF16 ? 2e-2 : 1e-6);
    } finally {
      f16.dispose();
      f32.dispose();
    }
  }, 120_000);
});
