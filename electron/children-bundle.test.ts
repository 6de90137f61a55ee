// The engine's embedder, trainer and local-model processes as the desktop app starts them, with plain Node
// (Electron's binary cannot be installed here). scripts/build-electron.ts builds the bundles into a
// temporary checkout; a harness bundled with main.cjs's options into main.cjs's folder must find
// the BUNDLED children (embed-child.cjs, train-job.cjs beside it; the sources are not there) and
// get real work back: a tiny ONNX model's vectors, a toy training job's steps.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TrainConfig, type ApiEvent, type ApiEventOf } from '../app/api/index.ts';
import { loadEmbedder } from '../app/papers/embed/embedder.ts';
import { writeTinyModel } from '../app/papers/embed/fixtures/tiny-model.ts';
import { checkModelFolder, type ModelFolder } from '../app/papers/index.ts';
import { createProvider } from '../app/models/index.ts';
import { inProcessLocalModels } from '../host/compose/local-models.ts';
import { writeScriptedModel } from '../training/engine/decoding/scripted-model.test-support.ts';
import { buildWithHarness } from './fixtures/build-with-harness.ts';
import type * as HarnessModule from './fixtures/children-harness.ts';

type Harness = typeof HarnessModule;

const projectRoot = fileURLToPath(new URL('..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'rlm-children-bundle-'));
// A checkout after `npm run build:electron`: dist/electron beside node_modules.
const checkout = join(dir, 'checkout');
const checkoutOut = join(checkout, 'dist', 'electron');
let harness: Harness;
let model: ModelFolder;

beforeAll(async () => {
  await buildWithHarness(projectRoot, checkoutOut, 'children-harness');
  // The children load their native packages (transformers.js, webgpu) from node_modules.
  symlinkSync(join(projectRoot, 'node_modules'), join(checkout, 'node_modules'), 'dir');
  harness = createRequire(join(checkoutOut, 'main.cjs'))('./children-harness.cjs') as Harness;
  model = await checkModelFolder(writeTinyModel(join(dir, 'tiny-model')));
}, 60_000);

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('the child scripts beside the bundle', () => {
  it('are the bundles, run by the same binary', () => {
    expect(harness.embedChild.resolve()).toEqual({
      execPath: process.execPath,
      script: join(checkoutOut, 'embed-child.cjs'),
      bundled: true,
    });
    expect(harness.trainJobChild.resolve()).toEqual({
      execPath: process.execPath,
      script: join(checkoutOut, 'train-job.cjs'),
      bundled: true,
    });
    expect(harness.localModelChild.resolve()).toEqual({
      execPath: process.execPath,
      script: join(checkoutOut, 'local-model.cjs'),
      bundled: true,
    });
  });

  it('stay inside app.asar in a packaged app (Electron run as Node reads the archive)', () => {
    const packedOut = join(dir, 'app', 'resources', 'app.asar', 'dist', 'electron');
    mkdirSync(packedOut, { recursive: true });
    writeFileSync(join(packedOut, 'embed-child.cjs'), '');
    expect(harness.embedChild.in(packedOut).resolve().script).toBe(
      join(packedOut, 'embed-child.cjs'),
    );
  });
});

describe('the bundled embedding process', () => {
  it('gives the vectors the pipeline gives in process', async () => {
    const texts = ['The language model uses attention.', 'Rain over the ocean.'];
    const child = await harness.loadEmbedderInProcess(model);
    const local = await loadEmbedder(model);
    try {
      const [viaChild, inProcess] = await Promise.all([child.embed(texts), local.embed(texts)]);
      expect(viaChild).toHaveLength(2);
      expect(viaChild.map((v) => [...v])).toEqual(inProcess.map((v) => [...v]));
    } finally {
      await Promise.all([child.dispose(), local.dispose()]);
    }
  }, 30_000);

  it('answers model types and keeps the name of a failed load', async () => {
    expect(await harness.knownModelTypeInProcess('bert')).toBe(true);
    const broken = writeTinyModel(join(dir, 'broken-model'));
    writeFileSync(join(broken, 'onnx', 'model.onnx'), 'not a protobuf');
    await expect(
      harness.loadEmbedderInProcess(await checkModelFolder(broken)),
    ).rejects.toMatchObject({ name: 'EmbeddingModelLoadError' });
  }, 30_000);
});

describe('the bundled trainer process', () => {
  const events: ApiEvent[] = [];
  let handlers: ReturnType<Harness['trainingHandlers']>;
  beforeAll(() => {
    const workspace = join(dir, 'workspace');
    mkdirSync(workspace);
    handlers = harness.trainingHandlers(workspace, (event) => events.push(event), Date.now, {
      launcher: harness.spawnTrainer,
      pollMs: 50,
    });
  });
  afterAll(() => {
    handlers.dispose();
  });

  const changed = (status: string) =>
    events.filter(
      (e): e is ApiEventOf<'train.jobChanged'> =>
        e.kind === 'train.jobChanged' && e.job.status === status,
    );
  async function until(predicate: () => boolean): Promise<void> {
    const started = Date.now();
    while (!predicate()) {
      if (Date.now() - started > 20_000) throw new Error('timed out');
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  it('runs a job and streams each step’s metrics', async () => {
    const config = TrainConfig.parse({
      baseModel: 'toy:bigram',
      lora: {},
      steps: 3,
      checkpointEvery: 3,
      batchSize: 2,
      learningRate: 4,
    });
    const { job } = await handlers['train.start']({ name: 'toy', config });
    await until(() => changed('done').length > 0 || changed('failed').length > 0);
    expect(changed('failed')).toEqual([]);
    const steps = events.filter((e): e is ApiEventOf<'train.step'> => e.kind === 'train.step');
    expect(steps.map((e) => e.metrics.step)).toEqual([1, 2, 3]);
    expect(steps.every((e) => e.jobId === job.id && Number.isFinite(e.metrics.loss))).toBe(true);
    const { job: done } = await handlers['train.metrics']({ jobId: job.id });
    expect(done).toMatchObject({ status: 'done', step: 3, error: null });
  }, 30_000);

  it('reports a job the trainer refuses, with its reason', async () => {
    await handlers['train.start']({
      name: 'real model',
      config: TrainConfig.parse({ baseModel: '/models/qwen3-0.6b', lora: {} }),
    });
    await until(() => changed('failed').length > 0);
    expect(changed('failed')[0]?.job.error?.message).toMatch(
      /TrainingInputError: a job on a real model needs a dataset/,
    );
  }, 30_000);
});

describe('the bundled children’s externals', () => {
  it('are loaded with require(), never import() (the CommonJS loader reads app.asar)', () => {
    for (const name of ['embed-child.cjs', 'train-job.cjs']) {
      const code = readFileSync(join(checkoutOut, name), 'utf8');
      expect(code).toMatch(/require\("@huggingface\/transformers"\)/);
      expect(code).not.toMatch(/\bimport\(\s*"(@huggingface\/transformers|webgpu)"/);
    }
    expect(readFileSync(join(checkoutOut, 'train-job.cjs'), 'utf8')).toMatch(/require\("webgpu"\)/);
  });
});

describe('the bundled local-model process', () => {
  it('answers a local: model as the engine does in process', async () => {
    const SCRIPT = ['```repl\n', "print('bundled')", '\n```\n', 'FINAL("local")'];
    const { model: path } = writeScriptedModel(dir, SCRIPT);
    const env = { RLM_STUDIO_BACKEND: 'wasm' };
    const processes = harness.localModelProcesses();
    try {
      const bundled = await createProvider(`local:${path}`, {
        factories: { local: processes.factory },
        env,
      });
      const local = await createProvider(`local:${path}`, {
        factories: { local: inProcessLocalModels() },
        env,
      });
      const request = {
        messages: [{ role: 'user' as const, content: 'go' }],
        agentId: '0',
        turn: 0,
      };
      const deltas: string[] = [];
      const fromBundle = await bundled.complete({
        ...request,
        onDelta: (text) => deltas.push(text),
      });
      const inProcess = await local.complete(request);
      expect(fromBundle.text).toBe(SCRIPT.join(''));
      expect(deltas).toEqual(SCRIPT);
      expect({ ...fromBundle, latencyMs: 0 }).toEqual({ ...inProcess, latencyMs: 0 });
    } finally {
      await processes.dispose();
    }
  }, 30_000);
});
