// Passages -> their embeddings -> the map. Cached vectors come from the workspace; only passages
// the cache lacks go through the model, which is loaded only then and kept for the next set (one
// model at a time: asking for another folder disposes the last).
import { mapDenseVectors, type PassageMap } from '../map/index.ts';
import type { Passage } from '../search/index.ts';
import { EmbeddingCache } from './embedding-cache.ts';
import type { Embedder, EmbedderLoader } from './embedder.ts';
import type { ModelFolder } from './model-folder.ts';

export interface EmbeddingMapsOptions {
  /** Where the per-model caches live (the workspace's `embeddings/`). */
  cacheDir: string;
  /** Loads a model: in the engine, the embedding process (app/host/embedder-process.ts). */
  load: EmbedderLoader;
}

export class EmbeddingMaps {
  readonly #cacheDir: string;
  readonly #load: EmbedderLoader;
  #caches = new Map<string, EmbeddingCache>();
  #embedder: { fingerprint: string; ready: Promise<Embedder> } | undefined;

  constructor(options: EmbeddingMapsOptions) {
    this.#cacheDir = options.cacheDir;
    this.#load = options.load;
  }

  #cache(model: ModelFolder): EmbeddingCache {
    let cache = this.#caches.get(model.fingerprint);
    if (!cache) {
      cache = new EmbeddingCache(this.#cacheDir, model.fingerprint);
      this.#caches.set(model.fingerprint, cache);
    }
    return cache;
  }

  async #embedderFor(model: ModelFolder): Promise<Embedder> {
    if (this.#embedder?.fingerprint !== model.fingerprint) {
      await this.dispose();
      const ready = this.#load(model);
      this.#embedder = { fingerprint: model.fingerprint, ready };
      // A failed load is not kept: the next map tries again (the folder may have been fixed).
      ready.catch(() => {
        if (this.#embedder?.ready === ready) this.#embedder = undefined;
      });
    }
    return this.#embedder.ready;
  }

  /** One unit vector per passage, running the model only on texts the cache lacks. */
  async vectors(passages: readonly Passage[], model: ModelFolder): Promise<Float32Array[]> {
    const cache = this.#cache(model);
    const missing = [...new Set(passages.map((p) => p.text).filter((t) => !cache.get(t)))];
    if (missing.length > 0) {
      const embedder = await this.#embedderFor(model);
      cache.add(missing, await embedder.embed(missing));
    }
    return passages.map((p) => cache.get(p.text) ?? new Float32Array());
  }

  async map(passages: readonly Passage[], model: ModelFolder): Promise<PassageMap> {
    return mapDenseVectors(passages, await this.vectors(passages, model));
  }

  /** Lets the loaded model go (its onnxruntime session); the caches stay on disk. */
  async dispose(): Promise<void> {
    const current = this.#embedder;
    this.#embedder = undefined;
    if (current) await (await current.ready.catch(() => undefined))?.dispose();
  }
}
