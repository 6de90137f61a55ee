// Training a tiny Qwen3.5 on jax-js (wasm, float64): log-probs and the gradients of every weight
// (Gated DeltaNet projections, conv, A_log, dt_bias, gated norm; gated attention with q/k norms;
// MLP, norms, embeddings) and of LoRA's A and B on every target PEFT can name, the linear-attention
// projections included, against central finite differences of the float64 reference written from
// Hugging Face's modeling code. The delta rule runs in chunks of 4 over sequences padded to 16, so
// the scan across chunks is differentiated too. Then the merged export as a Hugging Face folder.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { numpy as np, tree } from '@jax-js/jax';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CpuDecoder } from '../decoding/cpu-decoder.ts';
import { startBackend } from '../kernels/backend.ts';
import { float32Of } from '../loading/bf16.ts';
import { hfTensors, writeHfModel } from '../loading/hf-export.ts';
import { loadHfDecoderModel } from '../loading/hf-model.ts';
import {
  qwen35ReferenceLogits,
  TINY_QWEN35,
  tinyQwen35Tensors,
  writeTinyQwen35,
  type RawTensors,
} from '../loading/qwen35-reference.test-support.ts';
import {
  layerLinears,
  linearOf,
  withLinear,
  type DecoderModel,
  type LayerWeights,
} from '../loading/weights.ts';
import { mergeLora } from './adapter-io.ts';
import { HF_MODULE_NAMES, type LoraArrays, type LoraConfig } from './lora.ts';
import { Trainer } from './trainer.ts';

const root = mkdtempSync(join(tmpdir(), 'rlm-qwen35-train-'));
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

// Untied, so the embedding's and the head's gradients are separate leaves as in the host model.
const spec = { ...TINY_QWEN35, tied: false };
const folder = join(root, 'base');
writeTinyQwen35(folder, spec, tinyQwen35Tensors(spec, 21), { layout: 'causal' });
const { model } = loadHfDecoderModel(folder);
const config = model.config;

const sequences = [
  [5, 17, 200, 3, 99, 42, 262, 7, 128, 64, 1],
  [250, 31, 77, 150, 9, 222],
];
const weights = [
  [0.3, -1.2, 0.7, 0.1, -0.4, 0.9, 0.5, -0.6, 0.2, 1.1],
  [-0.8, 0.5, 1.1, -0.3, 0.6],
];

/** The engine's weights as the reference reads them: Hugging Face's tensors, text-model names. */
function rawOf(m: DecoderModel): RawTensors {
  const raw: RawTensors = new Map();
  for (const [name, t] of Object.entries(hfTensors(m))) {
    raw.set(name.replace(/^model\./, ''), { shape: t.shape, data: t.data });
  }
  return raw;
}

function referenceLoss(m: DecoderModel): number {
  const raw = rawOf(m);
  let loss = 0;
  sequences.forEach((seq, b) => {
    const logits = qwen35ReferenceLogits(spec, raw, seq);
    for (let t = 0; t < seq.length - 1; t++) {
      const row = logits[t] ?? [];
      const max = Math.max(...row);
      const lse = max + Math.log(row.reduce((a, x) => a + Math.exp(x - max), 0));
      loss += (weights[b]?.[t] ?? 0) * ((row[seq[t + 1] ?? 0] ?? 0) - lse);
    }
  });
  return loss;
}

/** A host array of `m` that a gradient leaf stands for. */
type Pick = (m: DecoderModel) => Float32Array;

/**
 * d loss / d x by central differences with one Richardson step ((4 D(h/2) - D(h)) / 3, error
 * O(h^4)): some gated-norm inputs of the random model sit far below sqrt(eps), where the loss
 * curves sharply enough that a plain central difference at h = 2^-12 is off by percents (and
 * one Richardson step from there by 1e-4).
 * Steps stay exact in float32 host weights.
 */
function richardson(f: (delta: number) => number): number {
  const h = 2 ** -14;
  const central = (step: number): number => (f(step) - f(-step)) / (2 * step);
  return (4 * central(h / 2) - central(h)) / 3;
}

function finiteDifference(pick: Pick, index: number): number {
  return richardson((delta) => {
    const copy = structuredClone(model);
    const a = pick(copy);
    a[index] = (a[index] ?? 0) + delta;
    return referenceLoss(copy);
  });
}

function expectClose(autodiff: number, fd: number, what: string): void {
  const err = Math.abs(autodiff - fd) / Math.max(1e-3, Math.abs(fd));
  expect.soft(err, `${what}: autodiff ${autodiff}, finite difference ${fd}`).toBeLessThan(1e-4);
}

async function leafData(a: np.Array): Promise<Float64Array> {
  return Float64Array.from((await a.ref.data()) as ArrayLike<number>);
}

beforeAll(async () => {
  await startBackend('wasm');
});

describe('Qwen3.5 gradients against finite differences (float64)', () => {
  it('of every weight (full fine-tuning)', async () => {
    const trainer = new Trainer(model, {
      lora: null,
      schedule: { peak: 0 },
      dtype: np.float64,
      deltaChunk: 4,
    });
    expect(await trainer.accumulate(sequences, weights)).toBeCloseTo(referenceLoss(model), 9);
    const grads = trainer.accumulatedGradient() as unknown as {
      tokenEmbedding: np.Array;
      lmHead: np.Array;
      finalNorm: np.Array;
      layers: Record<string, np.Array>[];
    };
    const checks: { name: string; grad: np.Array; pick: Pick; at: (i: number) => number }[] = [];
    // Linears are [in, out] on the device, [out, in] on the host.
    const transposedAt = (grad: np.Array) => {
      const out = grad.shape[1] ?? 1;
      const inp = grad.shape[0] ?? 1;
      return (i: number) => (i % out) * inp + Math.floor(i / out);
    };
    const same = (i: number) => i;
    checks.push({
      name: 'tokenEmbedding',
      grad: grads.tokenEmbedding,
      pick: (m) => float32Of(m.weights.tokenEmbedding),
      at: same,
    });
    checks.push({
      name: 'lmHead',
      grad: grads.lmHead,
      pick: (m) => float32Of(m.weights.lmHead),
      at: transposedAt(grads.lmHead),
    });
    checks.push({
      name: 'finalNorm',
      grad: grads.finalNorm,
      pick: (m) => m.weights.finalNorm,
      at: same,
    });
    const layerOf = (m: DecoderModel, l: number): LayerWeights => {
      const layer = m.weights.layers[l];
      if (!layer) throw new Error(`no layer ${l}`);
      return layer;
    };
    for (let l = 0; l < config.nLayers; l++) {
      const layer = grads.layers[l] ?? {};
      const vectors: [string, (w: LayerWeights) => Float32Array | null | undefined][] = [
        ['attnNorm', (w) => w.attnNorm],
        ['ffnNorm', (w) => w.ffnNorm],
      ];
      if (layerOf(model, l).deltaNet) {
        vectors.push(
          ['conv', (w) => w.deltaNet?.conv],
          ['aLog', (w) => w.deltaNet?.aLog],
          ['dtBias', (w) => w.deltaNet?.dtBias],
          ['deltaNorm', (w) => w.deltaNet?.norm],
        );
      } else {
        vectors.push(['qNorm', (w) => w.qNorm], ['kNorm', (w) => w.kNorm]);
      }
      for (const [name, get] of vectors) {
        const grad = layer[name];
        if (!grad) throw new Error(`no gradient for ${l}.${name}`);
        const pick: Pick = (m) => {
          const a = get(layerOf(m, l));
          if (!a) throw new Error(`no ${name}`);
          return a;
        };
        checks.push({ name: `${l}.${name}`, grad, pick, at: same });
      }
      for (const name of layerLinears(config, l)) {
        const grad = layer[name];
        if (!grad) throw new Error(`no gradient for ${l}.${name}`);
        const pick: Pick = (m) => float32Of(linearOf(layerOf(m, l), name));
        checks.push({ name: `${l}.${name}`, grad, pick, at: transposedAt(grad) });
      }
    }
    // 2 Gated DeltaNet layers (14 leaves each), 1 gated attention layer (11), the 3 globals.
    expect(checks.length).toBe(2 * 14 + 11 + 3);
    for (const check of checks) {
      const data = await leafData(check.grad);
      for (const i of [0, Math.floor(data.length / 3), data.length - 1]) {
        expectClose(
          data[i] ?? NaN,
          finiteDifference(check.pick, check.at(i)),
          `${check.name}[${i}]`,
        );
      }
    }
    tree.dispose(grads);
    trainer.dispose();
  }, 300_000);

  it('of LoRA A and B on every target, the linear-attention projections included', async () => {
    const targets = Object.values(HF_MODULE_NAMES);
    const lora: LoraConfig = { rank: 2, alpha: 4, targets };
    const trainer = new Trainer(model, {
      lora,
      loraInit: { seed: 5, randomB: true },
      schedule: { peak: 0 },
      dtype: np.float64,
      deltaChunk: 4,
    });
    const arrays = await trainer.adapterArrays();
    // Each layer adapts the targets it has: in_proj_* / out_proj in DeltaNet layers, q..o_proj in
    // the attention layer, the MLP's everywhere.
    arrays.layers.forEach((layer, l) => {
      expect(Object.keys(layer).sort()).toEqual([...layerLinears(config, l)].sort());
    });
    expect(await trainer.accumulate(sequences, weights)).toBeCloseTo(
      referenceLoss(mergeF64(lora, arrays)),
      9,
    );
    const grads = trainer.accumulatedGradient() as unknown as {
      layers: Record<string, { a: np.Array; b: np.Array }>[];
    };
    for (let l = 0; l < config.nLayers; l++) {
      for (const name of layerLinears(config, l)) {
        const pair = grads.layers[l]?.[name];
        if (!pair) throw new Error(`no LoRA gradient for ${l}.${name}`);
        for (const part of ['a', 'b'] as const) {
          const data = await leafData(pair[part]);
          for (const i of [0, data.length - 1]) {
            const fd = richardson((delta) => {
              const copy = structuredClone(arrays);
              const target = copy.layers[l]?.[name]?.[part];
              if (target) target[i] = (target[i] ?? 0) + delta;
              return referenceLoss(mergeF64(lora, copy));
            });
            expectClose(data[i] ?? NaN, fd, `${l}.${name}.${part}[${i}]`);
          }
        }
      }
    }
    tree.dispose(grads);
    trainer.dispose();
  }, 300_000);
});

/**
 * W + (alpha/rank) (A B)^T kept in float64 (the reference reads weights by index only), so a
 * finite difference in A or B is not lost to float32 rounding of the merged weight.
 */
function mergeF64(lora: LoraConfig, arrays: LoraArrays): DecoderModel {
  const scale = lora.alpha / lora.rank;
  const r = lora.rank;
  const layers = model.weights.layers.map((layer, l) => {
    let merged = layer;
    for (const name of layerLinears(config, l)) {
      const pair = arrays.layers[l]?.[name];
      if (!pair) continue;
      const w = Float64Array.from(float32Of(linearOf(layer, name)));
      const inp = pair.a.length / r;
      const out = pair.b.length / r;
      for (let o = 0; o < out; o++) {
        for (let i = 0; i < inp; i++) {
          let s = 0;
          for (let k = 0; k < r; k++) s += (pair.a[i * r + k] ?? 0) * (pair.b[k * out + o] ?? 0);
          w[o * inp + i] = (w[o * inp + i] ?? 0) + scale * s;
        }
      }
      merged = withLinear(merged, name, w as unknown as Float32Array);
    }
    return merged;
  });
  return { config, weights: { ...model.weights, layers } };
}

describe('Qwen3.5 merged export', () => {
  it('a LoRA-trained model merged and written as a Hugging Face folder reloads with the same logits', async () => {
    const lora: LoraConfig = { rank: 4, alpha: 8, targets: ['in_proj_qkv', 'out_proj', 'q_proj'] };
    const trainer = new Trainer(model, { lora, schedule: { peak: 1e-2 } });
    for (let step = 0; step < 3; step++) {
      await trainer.accumulateNll(sequences);
      await trainer.step();
    }
    const trained = await trainer.logProbs(sequences);
    const merged = mergeLora(model, lora, await trainer.adapterArrays());
    const exported = join(root, 'merged');
    writeHfModel(exported, merged, { dtype: 'F32' });
    const reloaded = loadHfDecoderModel(exported);
    expect(reloaded.model.config.hybrid).toEqual(config.hybrid);
    const decoder = new CpuDecoder(reloaded.model, { maxSeqLen: 32 });
    const base = await new Trainer(model, { lora: null, schedule: { peak: 0 } }).logProbs(
      sequences.slice(0, 1),
    );
    const seq = sequences[0] ?? [];
    let worst = 0;
    let moved = 0;
    for (let t = 0; t < seq.length - 1; t++) {
      const logits = decoder.stepSync([{ slot: 0, token: seq[t] ?? 0, pos: t }]);
      const max = Math.max(...logits);
      const lse = max + Math.log(logits.reduce((a, x) => a + Math.exp(x - max), 0));
      const logp = (logits[seq[t + 1] ?? 0] ?? 0) - lse;
      worst = Math.max(worst, Math.abs(logp - (trained[0]?.[t] ?? NaN)));
      moved = Math.max(moved, Math.abs((base[0]?.[t] ?? NaN) - (trained[0]?.[t] ?? NaN)));
    }
    // Training moved the log-probs; the reloaded merge reproduces the trained ones.
    expect(moved).toBeGreaterThan(1e-2);
    expect(worst).toBeLessThan(1e-4);
    decoder.dispose();
    trainer.dispose();
  }, 120_000);
});
