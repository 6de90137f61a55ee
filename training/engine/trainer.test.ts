// Training on jax-js (wasm, float64): per-token log-probs and the gradients of every weight (full
// fine-tuning: embedding, norms, q/k norms, biases, projections, rotary attention, SwiGLU, head)
// and of LoRA's A and B, each against central finite differences of a float64 reference forward
// pass; gradient accumulation; AdamW, clipping and schedules; adapter checkpoints and merges.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { numpy as np, tree } from '@jax-js/jax';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadAdapter, mergeLora, saveAdapter } from './adapter-io.ts';
import { startBackend } from './backend.ts';
import { CpuDecoder } from './cpu-decoder.ts';
import { referenceLogits, tinyRandomModel } from './hf-reference.test-support.ts';
import type { LoraArrays, LoraConfig } from './lora.ts';
import type { DecoderConfig } from './model-config.ts';
import { learningRateAt } from './optimizer.ts';
import { Trainer } from './trainer.ts';
import type { DecoderModel, LinearName } from './weights.ts';

const config: DecoderConfig = {
  family: 'qwen3',
  dim: 16,
  hiddenDim: 24,
  nLayers: 2,
  nHeads: 4,
  nKvHeads: 2,
  headDim: 4,
  vocabSize: 20,
  maxSeqLen: 32,
  normEps: 1e-6,
  ropeTheta: 10000,
  ropeScaling: {
    kind: 'yarn',
    factor: 2,
    originalMaxPositions: 8,
    betaFast: 32,
    betaSlow: 1,
    attentionFactor: 1.07,
  },
  ropeStyle: 'half',
  tiedEmbeddings: false,
  attentionBias: true,
  qkNorm: true,
};
const sequences = [
  [3, 7, 1, 19, 4, 4, 12],
  [5, 2, 9, 11],
];
// Random per-position weights: the loss is sum_t w[t] * logp[t].
const weights = [
  [0.3, -1.2, 0.7, 0.1, -0.4, 0.9],
  [-0.8, 0.5, 1.1],
];

function referenceLoss(model: DecoderModel): number {
  let loss = 0;
  sequences.forEach((seq, b) => {
    const logits = referenceLogits(model, seq);
    for (let t = 0; t < seq.length - 1; t++) {
      const row = logits[t] ?? [];
      const max = Math.max(...row);
      const lse = max + Math.log(row.reduce((a, x) => a + Math.exp(x - max), 0));
      loss += (weights[b]?.[t] ?? 0) * ((row[seq[t + 1] ?? 0] ?? 0) - lse);
    }
  });
  return loss;
}

function clone(model: DecoderModel): DecoderModel {
  const copy = (a: Float32Array | null) => (a ? Float32Array.from(a) : null);
  return {
    config: model.config,
    weights: {
      tokenEmbedding: Float32Array.from(model.weights.tokenEmbedding),
      lmHead: Float32Array.from(model.weights.lmHead),
      finalNorm: Float32Array.from(model.weights.finalNorm),
      layers: model.weights.layers.map((l) => ({
        attnNorm: Float32Array.from(l.attnNorm),
        wq: Float32Array.from(l.wq),
        wk: Float32Array.from(l.wk),
        wv: Float32Array.from(l.wv),
        wo: Float32Array.from(l.wo),
        bq: copy(l.bq),
        bk: copy(l.bk),
        bv: copy(l.bv),
        qNorm: copy(l.qNorm),
        kNorm: copy(l.kNorm),
        ffnNorm: Float32Array.from(l.ffnNorm),
        w1: Float32Array.from(l.w1),
        w2: Float32Array.from(l.w2),
        w3: Float32Array.from(l.w3),
      })),
    },
  };
}

/**
 * Central difference of the reference loss in one host weight. Host weights are float32, so the
 * step is large enough to be exact there and the float64 loss sees it exactly.
 */
function finiteDifference(
  model: DecoderModel,
  pick: (m: DecoderModel) => Float32Array,
  index: number,
): number {
  const h = 2 ** -12;
  const plus = clone(model);
  const minus = clone(model);
  const p = pick(plus);
  const m = pick(minus);
  p[index] = (p[index] ?? 0) + h;
  m[index] = (m[index] ?? 0) - h;
  return (referenceLoss(plus) - referenceLoss(minus)) / (2 * h);
}

/**
 * W + (alpha/rank) (A B)^T kept in float64 (the reference reads weights by index only), so a
 * finite difference in A or B is not lost to float32 rounding of the merged weight.
 */
function mergeF64(base: DecoderModel, lora: LoraConfig, arrays: LoraArrays): DecoderModel {
  const scale = lora.alpha / lora.rank;
  const layers = base.weights.layers.map((layer, l) => {
    const merged = { ...layer };
    for (const name of LINEARS) {
      const pair = arrays.layers[l]?.[name];
      if (!pair) continue;
      const w = Float64Array.from(layer[name]);
      const inp = pair.a.length / lora.rank;
      const out = pair.b.length / lora.rank;
      for (let o = 0; o < out; o++) {
        for (let i = 0; i < inp; i++) {
          let s = 0;
          for (let k = 0; k < lora.rank; k++)
            s += (pair.a[i * lora.rank + k] ?? 0) * (pair.b[k * out + o] ?? 0);
          w[o * inp + i] = (w[o * inp + i] ?? 0) + scale * s;
        }
      }
      merged[name] = w as unknown as Float32Array;
    }
    return merged;
  });
  return { config: base.config, weights: { ...base.weights, layers } };
}

async function leafData(a: np.Array): Promise<Float64Array> {
  return Float64Array.from((await a.ref.data()) as ArrayLike<number>);
}

beforeAll(async () => {
  await startBackend('wasm');
});

const model = tinyRandomModel(config, 77);
const LINEARS: LinearName[] = ['wq', 'wk', 'wv', 'wo', 'w1', 'w2', 'w3'];

describe('gradients against finite differences (float64)', () => {
  it('log-probs equal the reference forward', async () => {
    const trainer = new Trainer(model, { lora: null, schedule: { peak: 0 }, dtype: np.float64 });
    const logp = await trainer.logProbs(sequences);
    const stats = await trainer.logProbsAndEntropy(sequences);
    sequences.forEach((seq, b) => {
      const logits = referenceLogits(model, seq);
      for (let t = 0; t < seq.length - 1; t++) {
        const row = logits[t] ?? [];
        const max = Math.max(...row);
        const lse = max + Math.log(row.reduce((a, x) => a + Math.exp(x - max), 0));
        const entropy = -row.reduce((a, x) => a + Math.exp(x - lse) * (x - lse), 0);
        expect(stats.entropy[b]?.[t]).toBeCloseTo(entropy, 9);
        expect(stats.logp[b]?.[t]).toBeCloseTo(logp[b]?.[t] ?? NaN, 12);
      }
    });
    sequences.forEach((seq, b) => {
      const logits = referenceLogits(model, seq);
      for (let t = 0; t < seq.length - 1; t++) {
        const row = logits[t] ?? [];
        const max = Math.max(...row);
        const lse = max + Math.log(row.reduce((a, x) => a + Math.exp(x - max), 0));
        expect(logp[b]?.[t]).toBeCloseTo((row[seq[t + 1] ?? 0] ?? 0) - lse, 9);
      }
    });
    trainer.dispose();
  });

  it('of every weight (full fine-tuning)', async () => {
    const trainer = new Trainer(model, { lora: null, schedule: { peak: 0 }, dtype: np.float64 });
    const value = await trainer.accumulate(sequences, weights);
    expect(value).toBeCloseTo(referenceLoss(model), 9);
    const grads = trainer.accumulatedGradient() as unknown as {
      tokenEmbedding: np.Array;
      lmHead: np.Array;
      finalNorm: np.Array;
      layers: Record<string, np.Array>[];
    };
    const checks: {
      name: string;
      grad: np.Array;
      pick: (m: DecoderModel) => Float32Array;
      at: (i: number) => number;
      size: number;
    }[] = [];
    // Linears are [in, out] on the device, [out, in] on the host.
    const linear = (out: number, inp: number) => (i: number) =>
      (i % out) * inp + Math.floor(i / out);
    const same = (i: number) => i;
    checks.push({
      name: 'tokenEmbedding',
      grad: grads.tokenEmbedding,
      pick: (m) => m.weights.tokenEmbedding,
      at: same,
      size: config.vocabSize * config.dim,
    });
    checks.push({
      name: 'lmHead',
      grad: grads.lmHead,
      pick: (m) => m.weights.lmHead,
      at: linear(config.vocabSize, config.dim),
      size: config.vocabSize * config.dim,
    });
    checks.push({
      name: 'finalNorm',
      grad: grads.finalNorm,
      pick: (m) => m.weights.finalNorm,
      at: same,
      size: config.dim,
    });
    for (let l = 0; l < config.nLayers; l++) {
      const layer = grads.layers[l] ?? {};
      for (const name of ['attnNorm', 'ffnNorm', 'bq', 'bk', 'bv', 'qNorm', 'kNorm'] as const) {
        const grad = layer[name];
        if (!grad) throw new Error(`no gradient for ${name}`);
        checks.push({
          name: `${l}.${name}`,
          grad,
          pick: (m) => m.weights.layers[l]?.[name] ?? new Float32Array(),
          at: same,
          size: grad.size,
        });
      }
      for (const name of LINEARS) {
        const grad = layer[name];
        if (!grad) throw new Error(`no gradient for ${name}`);
        const [inp = 0, out = 0] = grad.shape;
        checks.push({
          name: `${l}.${name}`,
          grad,
          pick: (m) => m.weights.layers[l]?.[name] ?? new Float32Array(),
          at: linear(out, inp),
          size: inp * out,
        });
      }
    }
    let worst = 0;
    for (const check of checks) {
      const data = await leafData(check.grad);
      for (const i of [0, Math.floor(check.size / 3), check.size - 1]) {
        const fd = finiteDifference(model, check.pick, check.at(i));
        const g = data[i] ?? NaN;
        const err = Math.abs(g - fd) / Math.max(1e-3, Math.abs(fd));
        worst = Math.max(worst, err);
        expect(err, `${check.name}[${i}]: autodiff ${g}, finite difference ${fd}`).toBeLessThan(
          1e-4,
        );
      }
    }
    expect(worst).toBeLessThan(1e-4);
    tree.dispose(grads);
    trainer.dispose();
  }, 120_000);

  it('of LoRA A and B on every target module', async () => {
    const lora: LoraConfig = {
      rank: 2,
      alpha: 4,
      targets: ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj'],
    };
    const trainer = new Trainer(model, {
      lora,
      loraInit: { seed: 5, randomB: true },
      schedule: { peak: 0 },
      dtype: np.float64,
    });
    const arrays = await trainer.adapterArrays();
    const merged = mergeF64(model, lora, arrays);
    expect(await trainer.accumulate(sequences, weights)).toBeCloseTo(referenceLoss(merged), 9);
    const grads = trainer.accumulatedGradient() as unknown as {
      layers: Record<string, { a: np.Array; b: np.Array }>[];
    };
    for (const l of [0, 1]) {
      for (const name of LINEARS) {
        const pair = grads.layers[l]?.[name];
        if (!pair) throw new Error(`no LoRA gradient for ${name}`);
        for (const part of ['a', 'b'] as const) {
          const data = await leafData(pair[part]);
          for (const i of [0, data.length - 1]) {
            // Perturb the adapter, merge, and difference the reference loss.
            const h = 2 ** -12;
            const bump = (delta: number): number => {
              const copy: LoraArrays = {
                layers: arrays.layers.map((layer) =>
                  Object.fromEntries(
                    Object.entries(layer).map(([k, v]) => [
                      k,
                      { a: Float32Array.from(v.a), b: Float32Array.from(v.b) },
                    ]),
                  ),
                ),
              };
              const target = copy.layers[l]?.[name]?.[part];
              if (target) target[i] = (target[i] ?? 0) + delta;
              return referenceLoss(mergeF64(model, lora, copy));
            };
            const fd = (bump(h) - bump(-h)) / (2 * h);
            const g = data[i] ?? NaN;
            expect(
              Math.abs(g - fd) / Math.max(1e-3, Math.abs(fd)),
              `${l}.${name}.${part}[${i}]`,
            ).toBeLessThan(1e-4);
          }
        }
      }
    }
    tree.dispose(grads);
    trainer.dispose();
  }, 120_000);
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
