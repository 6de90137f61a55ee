// The embedding process against the in-process pipeline: the same vectors cross the pipe intact,
// model types are answered by the child, and a failed load keeps its error's name.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadEmbedder } from '../../app/papers/embed/embedder.ts';
import { writeTinyModel } from '../../app/papers/embed/fixtures/tiny-model.ts';
import { checkModelFolder, type ModelFolder } from '../../app/papers/index.ts';
import { knownModelTypeInProcess, loadEmbedderInProcess } from './embedder-process.ts';

let dir: string;
let model: ModelFolder;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rlm-embed-process-'));
  model = await checkModelFolder(writeTinyModel(join(dir, 'tiny-model')));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('the embedding process', () => {
  it('gives the vectors the pipeline gives in process', async () => {
    const texts = ['The language model uses attention.', 'Rain over the ocean.'];
    const child = await loadEmbedderInProcess(model);
    const local = await loadEmbedder(model);
    try {
      const [viaChild, inProcess] = await Promise.all([child.embed(texts), local.embed(texts)]);
      expect(viaChild.map((v) => [...v])).toEqual(inProcess.map((v) => [...v]));
    } finally {
      await Promise.all([child.dispose(), local.dispose()]);
    }
  });

  it('answers whether transformers.js knows a model type', async () => {
    expect(await knownModelTypeInProcess('bert')).toBe(true);
    expect(await knownModelTypeInProcess('frobnicator')).toBe(false);
  });

  it('keeps the name of a failed load', async () => {
    const broken = writeTinyModel(join(dir, 'broken-model'));
    writeFileSync(join(broken, 'onnx', 'model.onnx'), 'not a protobuf');
    await expect(loadEmbedderInProcess(await checkModelFolder(broken))).rejects.toMatchObject({
      name: 'EmbeddingModelLoadError',
    });
  });
});
