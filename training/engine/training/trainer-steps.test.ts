// Training on jax-js (wasm, float64): gradient accumulation; AdamW, clipping and schedules;
// adapter checkpoints and merged exports. The gradients themselves: trainer.test.ts.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { numpy as np, tree } from '@jax-js/jax';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadAdapter, mergeLora, saveAdapter } from './adapter-io.ts';
import { startBackend } from '../kernels/backend.ts';
import { CpuDecoder } from '../decoding/cpu-decoder.ts';
import type { LoraConfig } from './lora.ts';
import { learningRateAt } from './optimizer.ts';
import { Trainer } from './trainer.ts';
import { config, leafData, model, sequences, weights } from './trainer.test-support.ts';

beforeAll(async () => {
  await startBackend('wasm');
});

describe('optimizer, accumulation, checkpoints', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rlm-train-'));
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });
  const lora: LoraConfig = { rank: 4, alpha: 8, targets: ['wq', 'wv', 'w2'] };

  it('schedules: warmup, cosine and linear decay', () => {
    const s = {
      peak: 1e-3,
      warmupSteps: 10,
      totalSteps: 110,
      kind: 'cosine' as const,
      minRatio: 0.1,
    };
    expect(learningRateAt(0, s)).toBeCloseTo(1e-4, 12);
    expect(learningRateAt(9, s)).toBeCloseTo(1e-3, 12);
    expect(learningRateAt(60, s)).toBeCloseTo(1e-4 + 0.9e-3 * 0.5, 12);
    expect(learningRateAt(500, s)).toBeCloseTo(1e-4, 12);
    expect(learningRateAt(60, { ...s, kind: 'linear' })).toBeCloseTo(1e-4 + 0.9e-3 * 0.5, 12);
  });

  it('takes AdamW steps as the formula says, clipping the global norm', async () => {
    const trainer = new Trainer(model, {
      lora,
      loraInit: { seed: 1, randomB: true },
      schedule: { peak: 0.01 },
      dtype: np.float64,
      maxGradNorm: 0.5,
      optimizer: { weightDecay: 0.1 },
    });
    const before = await trainer.adapterArrays();
    await trainer.accumulate(sequences, weights);
    const grads = trainer.accumulatedGradient() as unknown as {
      layers: Record<string, { a: np.Array; b: np.Array }>[];
    };
    const g = await leafData(grads.layers[0]?.wq?.a ?? np.zeros([1]));
    tree.dispose(grads);
    const { gradNorm, learningRate } = await trainer.step();
    expect(learningRate).toBe(0.01);
    const clip = Math.min(1, 0.5 / gradNorm);
    const after = await trainer.adapterArrays();
    const p0 = before.layers[0]?.wq?.a ?? new Float32Array();
    const p1 = after.layers[0]?.wq?.a ?? new Float32Array();
    for (const i of [0, 5]) {
      // First step: m^ = g, v^ = g^2, so the update is lr * (sign(g) + wd * p) up to eps.
      const gi = (g[i] ?? 0) * clip;
      const expected = (p0[i] ?? 0) - 0.01 * (gi / (Math.abs(gi) + 1e-8) + 0.1 * (p0[i] ?? 0));
      expect(p1[i]).toBeCloseTo(expected, 6);
    }
    trainer.dispose();
  });

  it('accumulates micro-batches as one batch', async () => {
    const same = [sequences[0] ?? [], [4, 8, 15, 16, 3, 2, 1]];
    const one = new Trainer(model, {
      lora,
      loraInit: { seed: 2 },
      schedule: { peak: 0.01 },
      dtype: np.float64,
    });
    const two = new Trainer(model, {
      lora,
      loraInit: { seed: 2 },
      schedule: { peak: 0.01 },
      dtype: np.float64,
    });
    await one.accumulateNll(same);
    await two.accumulateNll([same[0] ?? []]);
    await two.accumulateNll([same[1] ?? []]);
    const a = await one.step();
    const b = await two.step();
    expect(b.gradNorm).toBeCloseTo(a.gradNorm, 10);
    const la = await one.logProbs(same);
    const lb = await two.logProbs(same);
    la.forEach((row, i) => {
      row.forEach((x, t) => {
        expect(lb[i]?.[t]).toBeCloseTo(x, 10);
      });
    });
    one.dispose();
    two.dispose();
  });

  it('drives the loss down, saves the adapter, reloads it and exports a merged model', async () => {
    const trainer = new Trainer(model, {
      lora,
      schedule: { peak: 0.05, warmupSteps: 2, totalSteps: 40, kind: 'cosine' },
    });
    const target = [[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]];
    const first = await trainer.accumulateNll(target);
    await trainer.step();
    let last = first;
    for (let i = 0; i < 39; i++) {
      last = await trainer.accumulateNll(target);
      await trainer.step();
    }
    expect(last).toBeLessThan(first * 0.5);
    const arrays = await trainer.adapterArrays();
    saveAdapter(join(dir, 'adapter'), config, lora, arrays);
    const loaded = loadAdapter(join(dir, 'adapter'), config);
    expect(loaded.lora).toEqual({ rank: 4, alpha: 8, targets: ['q_proj', 'v_proj', 'down_proj'] });
    const fresh = new Trainer(model, { lora: loaded.lora, schedule: { peak: 0 } });
    fresh.setAdapterArrays(loaded.arrays);
    const expected = await trainer.logProbs(target);
    const reloaded = await fresh.logProbs(target);
    expected[0]?.forEach((x, t) => {
      expect(reloaded[0]?.[t]).toBeCloseTo(x, 4);
    });
    // The merged model decodes the trained text with the plain-JS decoder.
    const merged = mergeLora(model, loaded.lora, loaded.arrays);
    const decoder = new CpuDecoder(merged);
    const seq = target[0] ?? [];
    for (let t = 0; t < seq.length - 1; t++) {
      const logits = decoder.stepSync([{ slot: 0, token: seq[t] ?? 0, pos: t }]);
      const max = Math.max(...logits);
      const lse = max + Math.log(logits.reduce((a, x) => a + Math.exp(x - max), 0));
      expect((logits[seq[t + 1] ?? 0] ?? 0) - lse).toBeCloseTo(expected[0]?.[t] ?? NaN, 3);
    }
    fresh.dispose();
    trainer.dispose();
  }, 60_000);
});
