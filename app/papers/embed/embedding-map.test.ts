import { mkdtempSync, readFileSync, rmSync, statSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Passage } from '../search/index.ts';
import { loadEmbedder, type EmbedderLoader } from './embedder.ts';
import { EmbeddingCache } from './embedding-cache.ts';
import { EmbeddingMaps } from './embedding-map.ts';
import { TINY_HIDDEN, writeTinyModel } from './fixtures/tiny-model.ts';
import { knownModelType } from './known-model-type.ts';
import { checkModelFolder, type ModelFolder } from './model-folder.ts';

let dir: string;
let model: ModelFolder;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rlm-embedding-map-'));
  model = await checkModelFolder(writeTinyModel(join(dir, 'tiny-model')), knownModelType);
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const passage = (paperId: string, start: number, text: string): Passage => ({
  paperId,
  start,
  end: start + text.length,
  text,
});
const passages = [
  passage('a', 0, 'The transformer language model uses attention.'),
  passage('a', 50, 'Training data for the neural network language model.'),
  passage('b', 0, 'Ocean and river climate: rain and weather.'),
  passage('b', 60, 'Rain on the river, weather over the ocean.'),
  passage('c', 0, 'The transformer language model uses attention.'),
];

/** The real loader, counting loads and embedded texts. */
function counting(): { load: EmbedderLoader; loads: number; texts: number } {
  const counts = { loads: 0, texts: 0 };
  const load: EmbedderLoader = async (folder) => {
    counts.loads++;
    const inner = await loadEmbedder(folder);
    return {
      model: inner.model,
      embed: (texts) => {
        counts.texts += texts.length;
        return inner.embed(texts);
      },
      dispose: () => inner.dispose(),
    };
  };
  return Object.assign(counts, { load });
}

describe('EmbeddingMaps', () => {
  it('maps passages by embeddings, each distinct text embedded once', async () => {
    const counter = counting();
    const maps = new EmbeddingMaps({ cacheDir: join(dir, 'embeddings'), load: counter.load });
    const map = await maps.map(passages, model);
    await maps.dispose();
    expect(map.method).toBe('embeddings-pca');
    expect(counter).toMatchObject({ loads: 1, texts: 4 });
    const [first, , ocean, , same] = map.points.map((p) => [p.x, p.y] as const);
    expect(same).toEqual(first);
    const [x0 = 0, y0 = 0] = first ?? [];
    const [x1 = 0, y1 = 0] = ocean ?? [];
    expect(Math.hypot(x1 - x0, y1 - y0)).toBeGreaterThan(0.5);
  });

  it('reopens from the workspace cache without loading the model', async () => {
    const cacheDir = join(dir, 'embeddings');
    const before = await new EmbeddingMaps({ cacheDir, load: loadEmbedder }).map(passages, model);
    const counter = counting();
    const reopened = new EmbeddingMaps({ cacheDir, load: counter.load });
    expect(await reopened.map(passages, model)).toEqual(before);
    expect(counter).toMatchObject({ loads: 0, texts: 0 });
    const more = [...passages, passage('c', 60, 'Protein genes in the cell.')];
    await reopened.map(more, model);
    await reopened.dispose();
    expect(counter).toMatchObject({ loads: 1, texts: 1 });
  });

  it('keeps whole records of a cache file cut short and appends after them', async () => {
    const cacheDir = join(dir, 'embeddings');
    const maps = new EmbeddingMaps({ cacheDir, load: loadEmbedder });
    const vectors = await maps.vectors(passages, model);
    await maps.dispose();
    const cache = new EmbeddingCache(cacheDir, model.fingerprint);
    const record = 32 + 4 * TINY_HIDDEN;
    expect(statSync(cache.path).size).toBe(4 + 4 * record);
    truncateSync(cache.path, 4 + 3 * record + 10);
    const cut = new EmbeddingCache(cacheDir, model.fingerprint);
    expect(cut.size).toBe(3);
    expect([...(cut.get(passages[0]?.text ?? '') ?? [])]).toEqual([...(vectors[0] ?? [])]);
    cut.add(['new text'], [vectors[2] ?? new Float32Array()]);
    expect(readFileSync(cut.path).length).toBe(4 + 4 * record);
    expect(new EmbeddingCache(cacheDir, model.fingerprint).size).toBe(4);
  });
});
