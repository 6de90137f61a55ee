// Training on jax-js (wasm, float64): per-token log-probs and the gradients of every weight (full
// fine-tuning: embedding, norms, q/k norms, biases, projections, rotary attention, SwiGLU, head)
// and of LoRA's A and B, each against central finite differences of a float64 reference forward
// pass. The optimizer, accumulation and checkpoints: trainer-steps.test.ts.
import { numpy as np, tree } from '@jax-js/jax';
import { beforeAll, describe, expect, it } from 'vitest';
import { startBackend } from '../kernels/backend.ts';
import { referenceLogits } from '../loading/hf-reference.test-support.ts';
import type { LoraArrays, LoraConfig } from './lora.ts';
import { Trainer } from './trainer.ts';
import { config, leafData, model, sequences, weights } from './trainer.test-support.ts';
import type { AttentionLinear, DecoderModel } from '../loading/weights.ts';
import { float32Of } from '../loading/bf16.ts';

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
      tokenEmbedding: Float32Array.from(float32Of(model.weights.tokenEmbedding)),
      lmHead: Float32Array.from(float32Of(model.weights.lmHead)),
      finalNorm: Float32Array.from(model.weights.finalNorm),
      layers: model.weights.layers.map((l) => ({
        attnNorm: Float32Array.from(l.attnNorm),
        wq: Float32Array.from(float32Of(l.wq)),
        wk: Float32Array.from(float32Of(l.wk)),
        wv: Float32Array.from(float32Of(l.wv)),
        wo: Float32Array.from(float32Of(l.wo)),
        bq: copy(l.bq),
        bk: copy(l.bk),
        bv: copy(l.bv),
        qNorm: copy(l.qNorm),
        kNorm: copy(l.kNorm),
        ffnNorm: Float32Array.from(l.ffnNorm),
        w1: Float32Array.from(float32Of(l.w1)),
        w2: Float32Array.from(float32Of(l.w2)),
        w3: Float32Array.from(float32Of(l.w3)),
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
      const w = Float64Array.from(float32Of(layer[name]));
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

beforeAll(async () => {
  await startBackend('wasm');
});

const LINEARS: AttentionLinear[] = ['wq', 'wk', 'wv', 'wo', 'w1', 'w2', 'w3'];

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
      pick: (m) => float32Of(m.weights.tokenEmbedding),
      at: same,
      size: config.vocabSize * config.dim,
    });
    checks.push({
      name: 'lmHead',
      grad: grads.lmHead,
      pick: (m) => float32Of(m.weights.lmHead),
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
          pick: (m) => float32Of(m.weights.layers[l]?.[name] ?? new Float32Array()),
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
