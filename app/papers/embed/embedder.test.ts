// The real pipeline (transformers.js + onnxruntime-node) on a tiny model the test writes: nothing
// is downloaded, the folder is all there is.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { env } from '@huggingface/transformers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EMBED_BATCH, loadEmbedder, type Embedder } from './embedder.ts';
import { TINY_HIDDEN, writeTinyModel } from './fixtures/tiny-model.ts';
import { knownModelType } from './known-model-type.ts';
import { checkModelFolder } from './model-folder.ts';

let dir: string;
let embedder: Embedder;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rlm-embedder-'));
  embedder = await loadEmbedder(
    await checkModelFolder(writeTinyModel(join(dir, 'tiny-model')), knownModelType),
  );
});
afterAll(async () => {
  await embedder.dispose();
  rmSync(dir, { recursive: true, force: true });
});

const dot = (a: Float32Array, b: Float32Array) => a.reduce((sum, v, i) => sum + v * (b[i] ?? 0), 0);

describe('loadEmbedder', () => {
  it('loads the model from local files only', () => {
    expect(env.allowRemoteModels).toBe(false);
    expect(embedder.model.name).toBe('tiny-model');
  });

  it('gives unit vectors, the same for the same text', async () => {
    const [a = new Float32Array(), b = new Float32Array(), c = new Float32Array()] =
      await embedder.embed([
        'The transformer model uses attention.',
        'The transformer model uses attention.',
        'Protein genes in the cell.',
      ]);
    expect(a).toHaveLength(TINY_HIDDEN);
    expect(Math.sqrt(dot(a, a))).toBeCloseTo(1, 5);
    expect([...b]).toEqual([...a]);
    expect([...c]).not.toEqual([...a]);
  });

  it('places texts sharing words closer than unrelated ones', async () => {
    const [model = new Float32Array(), alsoModel = new Float32Array(), ocean = new Float32Array()] =
      await embedder.embed([
        'neural network training data for the language model',
        'a language model with attention, trained on data',
        'ocean river climate rain weather',
      ]);
    expect(dot(model, alsoModel)).toBeGreaterThan(dot(model, ocean) + 0.1);
  });

  it('embeds in batches with padding that does not change a vector', async () => {
    const texts = Array.from({ length: EMBED_BATCH + 3 }, (_, i) =>
      i % 2 === 0
        ? `gene ${String(i)}`
        : 'a much longer passage about the protein and its cell biology',
    );
    const together = await embedder.embed(texts);
    expect(together).toHaveLength(texts.length);
    const [alone = new Float32Array()] = await embedder.embed([texts[0] ?? '']);
    const first = together[0] ?? new Float32Array();
    for (let d = 0; d < TINY_HIDDEN; d++) expect(first[d]).toBeCloseTo(alone[d] ?? NaN, 5);
  });

  it('names a model file onnxruntime cannot load', async () => {
    const broken = writeTinyModel(join(dir, 'broken-model'));
    writeFileSync(join(broken, 'onnx', 'model.onnx'), 'not a protobuf at all');
    await expect(
      loadEmbedder(await checkModelFolder(broken, knownModelType)),
    ).rejects.toMatchObject({
      name: 'EmbeddingModelLoadError',
    });
  });
});
