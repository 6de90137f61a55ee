// The SIMD matvec kernel against plain JS: odd shapes (cols % 8 === 4), batches, whole decoders.
import { describe, expect, it } from 'vitest';
import { CpuDecoder } from '../decoding/cpu-decoder.ts';
import { matmulRows } from '../decoding/cpu-ops.ts';
import type { DecoderConfig } from '../loading/model-config.ts';
import { randomDecoderModel } from '../loading/random-model.ts';
import { WasmArena } from './wasm-matvec.ts';
import { WeightArenas } from './weight-arenas.ts';
import { Bf16Array } from '../loading/bf16.ts';

describe('WasmArena.matvec', () => {
  it('equals the JS loop for cols % 8 of 0 and 4, rows of any size', () => {
    for (const [rows, cols] of [
      [7, 8],
      [33, 172],
      [5, 4],
      [64, 512],
    ] as const) {
      const arena = WasmArena.create(rows * cols + cols + 2 * rows + 64);
      if (!arena) throw new Error('WebAssembly SIMD is unavailable');
      const w = arena.copy(Float32Array.from({ length: rows * cols }, (_, i) => Math.sin(i)));
      const x = arena.copy(Float32Array.from({ length: cols }, (_, i) => Math.cos(i)));
      const out = arena.alloc(rows);
      arena.matvec(out.byteOffset, x.byteOffset, w.byteOffset, rows, cols);
      const expected = new Float32Array(rows);
      matmulRows(expected, x, w, rows, cols, 1);
      expected.forEach((e, i) => {
        expect(out[i]).toBeCloseTo(e, 4);
      });
    }
  });

  it('matvec4 equals four matvecs', () => {
    const [rows, cols] = [33, 172];
    const arena = WasmArena.create(rows * cols + 4 * cols + 8 * rows + 64);
    if (!arena) throw new Error('WebAssembly SIMD is unavailable');
    const w = arena.copy(Float32Array.from({ length: rows * cols }, (_, i) => Math.sin(i)));
    const x = arena.copy(Float32Array.from({ length: 4 * cols }, (_, i) => Math.cos(i)));
    const out = arena.alloc(4 * rows);
    arena.matvec4(out.byteOffset, x.byteOffset, w.byteOffset, rows, cols);
    const expected = new Float32Array(4 * rows);
    matmulRows(expected, x, w, rows, cols, 4);
    expected.forEach((e, i) => {
      expect(out[i]).toBeCloseTo(e, 3);
    });
  });

  it('bf16 weights: matvec and matvec4 equal float32 products of the widened weights', () => {
    for (const [rows, cols] of [
      [7, 8],
      [33, 176],
      [64, 512],
    ] as const) {
      const arenas = WeightArenas.create();
      if (!arenas) throw new Error('WebAssembly SIMD is unavailable');
      const f = Float32Array.from({ length: rows * cols }, (_, i) => Math.sin(i * 0.37));
      const w = arenas.place(Bf16Array.fromFloat32(f));
      const widened = Bf16Array.fromFloat32(f).toFloat32();
      for (const batch of [1, 4, 6]) {
        const x = Float32Array.from({ length: batch * cols }, (_, i) => Math.cos(i));
        const out = new Float32Array(batch * rows);
        expect(arenas.matmul(out, x, w, rows, cols, batch)).toBe(true);
        const expected = new Float32Array(batch * rows);
        matmulRows(expected, x, widened, rows, cols, batch);
        const plain = new Float32Array(batch * rows);
        matmulRows(plain, x, w, rows, cols, batch);
        expected.forEach((e, i) => {
          expect(out[i]).toBeCloseTo(e, 3);
          expect(plain[i]).toBeCloseTo(e, 3);
        });
      }
      // Widening is exact: each bf16 is the high half of the float32 it came from.
      expect(widened.every((v, i) => Math.abs(v - (f[i] ?? 0)) <= Math.abs(f[i] ?? 0) / 128)).toBe(
        true,
      );
    }
  });

  it('gives a decoder the logits of the plain-JS one, batched', async () => {
    const config: DecoderConfig = {
      family: 'llama',
      dim: 36,
      hiddenDim: 92,
      nLayers: 2,
      nHeads: 3,
      nKvHeads: 1,
      headDim: 12,
      vocabSize: 50,
      maxSeqLen: 16,
      normEps: 1e-5,
      ropeTheta: 10000,
      ropeScaling: { kind: 'none' },
      ropeStyle: 'half',
      tiedEmbeddings: false,
      attentionBias: true,
      qkNorm: true,
    };
    const model = randomDecoderModel(config, 3);
    const simd = new CpuDecoder(model, { maxBatch: 2 });
    const plain = new CpuDecoder(model, { maxBatch: 2, simd: false });
    expect(simd.implementation).toContain('wasm-simd');
    for (let pos = 0; pos < 5; pos++) {
      const inputs = [
        { slot: 0, token: pos * 7, pos },
        { slot: 1, token: 49 - pos, pos },
      ];
      const a = await simd.step(inputs);
      const b = await plain.step(inputs);
      b.forEach((v, i) => {
        expect(a[i]).toBeCloseTo(v, 3);
      });
    }
  });
});
