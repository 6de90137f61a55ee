// `npm run bench:engine`: the local model engine's speed. (1) Decode tokens/s per backend on
// stories260K (dispatch-bound) and on a random ~25M-parameter llama2.c checkpoint this script
// writes (compute-bound); with LLAMA2C_RUN naming a built llama2.c `run`, the same checkpoints and
// prompt through it, and our/its ratios. (2) A LoRA training step (sequence 128) on the 25M model:
// achieved GFLOP/s against the backend's own matmul rate measured in the same run. WebGPU runs
// when an adapter exists (SwiftShader is correctness only: its figures say nothing of a GPU).
// (3) On a GPU, a random Qwen2.5-0.5B-shaped model: decode and LoRA training tokens/s.
// BENCH_QUICK=1 shortens every phase. Ends with one JSON line of figures.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { blockUntilReady, jit, numpy as np } from '@jax-js/jax';
import {
  CpuDecoder,
  JaxDecoder,
  Llama2cTokenizer,
  Trainer,
  generate,
  generateBatch,
  paramCount,
  probeWebGpuAdapter,
  randomDecoderModel,
  readLlama2cCheckpoint,
  startBackend,
  writeLlama2cCheckpoint,
  type BackendName,
  type Decoder,
  type DecoderConfig,
  type DecoderModel,
} from '../training/engine/index.ts';
import { benchHybrid } from './engine-hybrid.ts';

const quick = process.env.BENCH_QUICK === '1';
const shared = new URL('../../shared/data/models/stories260K/', import.meta.url).pathname;
const storiesBin = join(shared, 'stories260K.bin');
const tokenizerBin = join(shared, 'tok512.bin');
const dir = mkdtempSync(join(tmpdir(), 'rlm-bench-engine-'));
const prompt = 'Once upon a time';
const figures: Record<string, number | string | null> = {};

// A llama2.c-shaped model of about 25M parameters, with stories260K's 512-token vocabulary so the
// same tokenizer.bin serves it (and llama2.c's run can read both).
const config25m: DecoderConfig = {
  family: 'llama2c',
  dim: 512,
  hiddenDim: 1376,
  nLayers: 8,
  nHeads: 8,
  nKvHeads: 8,
  headDim: 64,
  vocabSize: 512,
  maxSeqLen: 256,
  normEps: 1e-5,
  ropeTheta: 10000,
  ropeScaling: { kind: 'none' },
  ropeStyle: 'interleaved',
  tiedEmbeddings: true,
  attentionBias: false,
  qkNorm: false,
};
const random25mBin = join(dir, 'random25m.bin');
writeLlama2cCheckpoint(random25mBin, randomDecoderModel(config25m, 25));
const models: { name: string; file: string; model: DecoderModel }[] = [
  { name: 'stories260K', file: storiesBin, model: readLlama2cCheckpoint(storiesBin) },
  { name: 'random25M', file: random25mBin, model: readLlama2cCheckpoint(random25mBin) },
];
const tokenizer = Llama2cTokenizer.fromFile(tokenizerBin, 512);
console.log(
  `models: stories260K (${paramCount(models[0]?.model.config ?? config25m)} params), random25M (${paramCount(config25m)} params, written to ${random25mBin})`,
);

const probe = await probeWebGpuAdapter();
const backends: BackendName[] = probe.adapter ? ['wasm', 'webgpu'] : ['wasm'];
// SwiftShader (Vulkan on the CPU) checks correctness; its speed says nothing about a GPU.
const realGpu = probe.adapter !== null && !/swiftshader/i.test(probe.detail);
if (!probe.adapter) console.log(`WebGPU skipped: ${probe.detail}`);
else console.log(`WebGPU adapter: ${probe.detail}`);

/** Tokens per second over `steps` positions (run.c's count: positions after the first). */
async function decodeRate(decoder: Decoder, steps: number): Promise<number> {
  await generate(decoder, tokenizer, [prompt], { steps: Math.min(8, steps), temperature: 0 });
  const started = performance.now();
  const [out] = await generate(decoder, tokenizer, [prompt], { steps, temperature: 0 });
  const seconds = (performance.now() - started) / 1000;
  const positions = (out?.promptTokens.length ?? 1) - 1 + (out?.tokens.length ?? 0);
  return positions / seconds;
}

const steps = (name: string, impl: string): number => {
  const big = name === 'random25M';
  if (impl === 'js') return quick ? (big ? 16 : 128) : big ? 128 : 256;
  if (impl === 'jax-wasm') return quick ? 8 : big ? 16 : 64;
  return quick ? 4 : big ? 8 : 32; // SwiftShader WebGPU is slow
};

// (1) Decode.
for (const backend of backends) {
  await startBackend(backend);
  for (const { name, model } of models) {
    const impls: [string, () => Decoder][] =
      backend === 'wasm'
        ? [
            ['js', () => new CpuDecoder(model, { maxSeqLen: 256 })],
            [
              'jax-wasm',
              () => new JaxDecoder(model, 'wasm', { maxSeqLen: steps(name, 'jax-wasm') }),
            ],
          ]
        : [
            [
              'jax-webgpu',
              () => new JaxDecoder(model, 'webgpu', { maxSeqLen: steps(name, 'jax-webgpu') }),
            ],
          ];
    for (const [impl, make] of impls) {
      const decoder = make();
      try {
        const rate = await decodeRate(decoder, steps(name, impl));
        figures[`decode_${name}_${backend}_${impl}_tok_per_s`] = Math.round(rate * 10) / 10;
        console.log(
          `decode ${name} on ${backend} (${decoder.implementation}): ${rate.toFixed(1)} tok/s`,
        );
      } finally {
        decoder.dispose();
      }
    }
  }
}

// Prompt prefill on the CPU decoder (chunks of positions through the 4-vector kernel).
await startBackend('wasm');
for (const { name, model } of models) {
  const decoder = new CpuDecoder(model, { maxSeqLen: 256 });
  const ids = Array.from({ length: quick ? 64 : 200 }, (_, i) => (i * 31 + 7) % 512);
  ids[0] = 1;
  await generateBatch(decoder, tokenizer, [
    { prompt: ids.slice(0, 16), options: { maxNewTokens: 1, temperature: 0 } },
  ]);
  const started = performance.now();
  await generateBatch(decoder, tokenizer, [
    { prompt: ids, options: { maxNewTokens: 1, temperature: 0 } },
  ]);
  const rate = ids.length / ((performance.now() - started) / 1000);
  figures[`prefill_${name}_wasm_js_tok_per_s`] = Math.round(rate * 10) / 10;
  console.log(`prefill ${name} on wasm (${decoder.implementation}): ${rate.toFixed(1)} tok/s`);
  decoder.dispose();
}

// llama2.c's own run on the same checkpoints and prompt, when given: ours and theirs alternately
// (this machine's speed drifts by a fifth between minutes), the median of each and of the ratios.
const runBinary = process.env.LLAMA2C_RUN;
const median = (xs: number[]): number => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[mid] ?? NaN)
    : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
};
if (runBinary) {
  await startBackend('wasm');
  for (const { name, file, model } of models) {
    const n = steps(name, 'js');
    const decoder = new CpuDecoder(model, { maxSeqLen: 256 });
    const ours: number[] = [];
    const theirs: number[] = [];
    for (let rep = 0; rep < (quick ? 2 : 5); rep++) {
      ours.push(await decodeRate(decoder, n));
      const result = spawnSync(
        runBinary,
        [file, '-z', tokenizerBin, '-t', '0', '-n', String(n), '-i', prompt],
        { encoding: 'utf8' },
      );
      const match = /achieved tok\/s: ([\d.]+)/.exec(result.stderr);
      if (!match?.[1]) throw new Error(`llama2.c's run printed no rate: ${result.stderr}`);
      theirs.push(Number(match[1]));
    }
    decoder.dispose();
    const ratios = ours.map((o, i) => o / (theirs[i] ?? NaN));
    figures[`llama2c_${name}_tok_per_s`] = Math.round(median(theirs) * 10) / 10;
    figures[`decode_${name}_wasm_js_alternating_tok_per_s`] = Math.round(median(ours) * 10) / 10;
    figures[`ratio_${name}_wasm_vs_llama2c`] = Math.round(median(ratios) * 1000) / 1000;
    console.log(
      `llama2.c run on ${name}, alternating with ours x${ours.length}: theirs ${theirs.map((x) => x.toFixed(0)).join(' ')} tok/s, ours ${ours.map((x) => x.toFixed(0)).join(' ')}; median ratio ${median(ratios).toFixed(3)}`,
    );
  }
} else {
  console.log('LLAMA2C_RUN not set: no llama2.c comparison');
}

// (2) Matmul rate and a LoRA training step, per backend.
// The machine may be shared: both the matmul rate and the step time are the best of their
// repetitions, so the ratio compares each at its least disturbed.
async function matmulRate(m: number, k: number, n: number): Promise<number> {
  const a = np.ones([m, k]);
  const b = np.ones([k, n]);
  const mm = jit((x: np.Array, y: np.Array) => np.matmul(x, y));
  await blockUntilReady(mm(a.ref, b.ref)).then((r) => {
    r.dispose();
  });
  let best = Infinity;
  for (let i = 0; i < 5; i++) {
    const started = performance.now();
    const out = mm(a.ref, b.ref);
    await out.blockUntilReady();
    best = Math.min(best, (performance.now() - started) / 1000);
    out.dispose();
  }
  a.dispose();
  b.dispose();
  mm.dispose();
  return (2 * m * k * n) / best / 1e9;
}

/** Matmul FLOPs of one LoRA step: forward (2 per weight per token) and input gradients (2 more). */
function loraStepFlops(c: DecoderConfig, tokens: number, rank: number, targets: number): number {
  const linear = c.nLayers * (4 * c.dim * c.dim + 3 * c.dim * c.hiddenDim) + c.vocabSize * c.dim;
  const attention = c.nLayers * 2 * 2 * tokens * tokens * c.dim; // QK^T and PV, full T x T
  const lora = c.nLayers * targets * 2 * rank * 2 * c.dim;
  return (2 + 2) * (linear + lora) * tokens + 3 * attention + 2 * lora * tokens;
}

const trainBackends = quick ? backends.filter((b) => b === 'wasm') : backends;
for (const backend of trainBackends) {
  await startBackend(backend);
  const seq = 128;
  const model = models[1]?.model;
  if (!model) throw new Error('the 25M model is missing');
  const trainer = new Trainer(model, {
    lora: { rank: 8, alpha: 16, targets: ['q_proj', 'k_proj', 'v_proj', 'o_proj'] },
    schedule: { peak: 1e-4 },
    padTo: seq,
  });
  // Batches of 1 and of 4 sequences of 128 tokens.
  for (const batchSize of [1, 4]) {
    const tokens = Array.from({ length: batchSize }, (_, b) =>
      Array.from({ length: seq }, (_, i) => (i * 37 + 11 * b + 11) % config25m.vocabSize),
    );
    await trainer.accumulateNll(tokens);
    await trainer.step();
    // Matmul and step timed in turns, so both meet the same load on a shared machine.
    let rate = 0;
    let seconds = Infinity;
    const reps = quick || (backend === 'webgpu' && !realGpu) ? 1 : 4;
    for (let i = 0; i < reps; i++) {
      rate = Math.max(rate, await matmulRate(seq, config25m.dim, config25m.hiddenDim));
      const started = performance.now();
      await trainer.accumulateNll(tokens);
      await trainer.step();
      seconds = Math.min(seconds, (performance.now() - started) / 1000);
    }
    const tag = `${backend}_b${batchSize}`;
    figures[`matmul_${tag}_gflop_per_s`] = Math.round(rate * 100) / 100;
    const gflops = (batchSize * loraStepFlops(config25m, seq, 8, 4)) / seconds / 1e9;
    figures[`lora_step_${tag}_s`] = Math.round(seconds * 1000) / 1000;
    figures[`lora_step_${tag}_gflop_per_s`] = Math.round(gflops * 100) / 100;
    figures[`lora_step_${tag}_fraction_of_matmul`] = Math.round((gflops / rate) * 1000) / 1000;
    figures[`lora_train_${tag}_tokens_per_s`] = Math.round((batchSize * seq) / seconds);
    console.log(
      `LoRA step (25M, ${batchSize} x ${seq} tokens, rank 8, q/k/v/o) on ${backend}: ${seconds.toFixed(2)} s, ${gflops.toFixed(2)} GFLOP/s against matmul [${seq}x${config25m.dim}]@[${config25m.dim}x${config25m.hiddenDim}] ${rate.toFixed(2)} GFLOP/s: ${((gflops / rate) * 100).toFixed(0)}%`,
    );
    if (backend === 'webgpu' && !realGpu) break; // SwiftShader: one batch size is plenty
  }
  trainer.dispose();
}

// (3) On a GPU (an adapter that is not SwiftShader), or with BENCH_QWEN=1: a Qwen2.5-0.5B-shaped
// model built at random, decode tokens/s and LoRA training tokens/s. BENCH_QWEN_LAYERS and
// BENCH_QWEN_VOCAB shrink it for a smoke run.
if (realGpu || process.env.BENCH_QWEN === '1') {
  const qwen: DecoderConfig = {
    family: 'qwen2',
    dim: 896,
    hiddenDim: 4864,
    nLayers: Number(process.env.BENCH_QWEN_LAYERS ?? 24),
    nHeads: 14,
    nKvHeads: 2,
    headDim: 64,
    vocabSize: Number(process.env.BENCH_QWEN_VOCAB ?? 151936),
    maxSeqLen: 512,
    normEps: 1e-6,
    ropeTheta: 1000000,
    ropeScaling: { kind: 'none' },
    ropeStyle: 'half',
    tiedEmbeddings: true,
    attentionBias: true,
    qkNorm: false,
  };
  const qwenModel = randomDecoderModel(qwen, 5);
  const params = paramCount(qwen);
  figures.qwen_params = params;
  console.log(`Qwen-shaped random model: ${(params / 1e6).toFixed(0)}M parameters`);
  const qwenBackends: BackendName[] = realGpu ? ['webgpu', 'wasm'] : ['wasm'];
  const seq = 128;
  for (const backend of qwenBackends) {
    const info = await startBackend(backend);
    const decodeSteps = quick ? 8 : 64;
    const decoders: [string, () => Decoder][] =
      backend === 'webgpu'
        ? [
            ['f32', () => new JaxDecoder(qwenModel, 'webgpu', { maxSeqLen: decodeSteps })],
            [
              'f16',
              () =>
                new JaxDecoder(qwenModel, 'webgpu', {
                  maxSeqLen: decodeSteps,
                  precision: 'f16',
                  shaderF16: info.shaderF16,
                }),
            ],
          ]
        : [['f32', () => new CpuDecoder(qwenModel, { maxSeqLen: decodeSteps })]];
    for (const [precision, make] of decoders) {
      const decoder = make();
      try {
        const rate = await decodeRate(decoder, decodeSteps);
        figures[`qwen_decode_${backend}_${precision}_tok_per_s`] = Math.round(rate * 10) / 10;
        console.log(
          `Qwen decode on ${backend} (${decoder.implementation}): ${rate.toFixed(1)} tok/s`,
        );
      } finally {
        decoder.dispose();
      }
    }
    if (backend === 'wasm' && realGpu) continue; // a 0.5B training step on the CPU takes minutes
    const trainer = new Trainer(qwenModel, {
      lora: { rank: 16, alpha: 32, targets: ['q_proj', 'k_proj', 'v_proj', 'o_proj'] },
      schedule: { peak: 1e-4 },
      padTo: seq,
    });
    const batch = [Array.from({ length: seq }, (_, i) => (i * 7919 + 3) % qwen.vocabSize)];
    await trainer.accumulateNll(batch);
    await trainer.step();
    const reps = quick ? 1 : 3;
    const started = performance.now();
    for (let i = 0; i < reps; i++) {
      await trainer.accumulateNll(batch);
      await trainer.step();
    }
    const seconds = (performance.now() - started) / 1000 / reps;
    trainer.dispose();
    figures[`qwen_lora_train_${backend}_tokens_per_s`] = Math.round((seq / seconds) * 10) / 10;
    console.log(
      `Qwen LoRA step on ${backend} (seq ${seq}, rank 16): ${seconds.toFixed(2)} s, ${(seq / seconds).toFixed(1)} tokens/s`,
    );
  }
}

rmSync(dir, { recursive: true, force: true });
// (4) Qwen3.5-shaped models beside Llama-shaped ones on the CPU (bench/engine-hybrid.ts).
benchHybrid(figures, quick);

console.log(JSON.stringify(figures));
process.exit(0);
