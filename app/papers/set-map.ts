// The map of a paper set by the method asked for: TF-IDF, or sentence embeddings from the model
// folder set in Settings. When embeddings cannot be had (no model, a broken folder, a model that
// fails to load or run) the map is drawn with TF-IDF and says why; nothing is lost.
import { checkModelFolder, EmbeddingModelNotSetError, type EmbeddingMaps } from './embed/index.ts';
import type { PassageMap } from './map/index.ts';
import type { Passage } from './search/index.ts';
import type { SetSearch } from './set-search.ts';

export type MapRequestMethod = 'auto' | PassageMap['method'];

export interface SetMap extends PassageMap {
  /** The embedding model's name when the map was drawn from embeddings. */
  model?: string;
  /** Why embeddings were asked for and not used. */
  fallback?: { name: string; message: string };
}

function reason(error: unknown): { name: string; message: string } {
  if (error instanceof Error) return { name: error.name, message: error.message };
  return { name: 'Error', message: String(error) };
}

export class SetMaps {
  readonly #search: SetSearch;
  readonly #embeddings: EmbeddingMaps;
  /** Embedding maps by passage list (a set's list is replaced when the set changes) and model. */
  readonly #drawn = new WeakMap<readonly Passage[], Map<string, Promise<PassageMap>>>();

  constructor(search: SetSearch, embeddings: EmbeddingMaps) {
    this.#search = search;
    this.#embeddings = embeddings;
  }

  async #embeddingMap(passages: readonly Passage[], folder: string): Promise<SetMap> {
    // Files only: asking transformers.js about the type would start a process on every reopen.
    const model = await checkModelFolder(folder);
    let byModel = this.#drawn.get(passages);
    if (!byModel) {
      byModel = new Map();
      this.#drawn.set(passages, byModel);
    }
    let drawn = byModel.get(model.fingerprint);
    if (!drawn) {
      drawn = this.#embeddings.map(passages, model);
      byModel.set(model.fingerprint, drawn);
      const forget = byModel;
      drawn.catch(() => forget.delete(model.fingerprint));
    }
    return { ...(await drawn), model: model.name };
  }

  /** `auto` is embeddings when a model folder is set, else TF-IDF. */
  async map(set: string, method: MapRequestMethod, modelFolder: string | null): Promise<SetMap> {
    const wantsEmbeddings = method === 'embeddings-pca' || (method === 'auto' && modelFolder);
    if (!wantsEmbeddings) return this.#search.map(set);
    try {
      if (!modelFolder) throw new EmbeddingModelNotSetError();
      return await this.#embeddingMap(this.#search.passages(set), modelFolder);
    } catch (error) {
      return { ...this.#search.map(set), fallback: reason(error) };
    }
  }

  /**
   * One unit vector per paper of a set: the mean of its passages' embeddings (the map's, cached),
   * normalised. Throws the model folder's named error when the folder is not a model.
   */
  async paperVectors(
    set: string,
    modelFolder: string,
  ): Promise<{ vectors: Map<string, Float32Array>; model: string }> {
    const model = await checkModelFolder(modelFolder);
    const passages = this.#search.passages(set);
    const vectors = await this.#embeddings.vectors(passages, model);
    const sums = new Map<string, Float32Array>();
    passages.forEach((passage, i) => {
      const v = vectors[i];
      if (!v || v.length === 0) return;
      let sum = sums.get(passage.paperId);
      if (!sum) {
        sum = new Float32Array(v.length);
        sums.set(passage.paperId, sum);
      }
      for (let d = 0; d < v.length; d++) sum[d] = (sum[d] ?? 0) + (v[d] ?? 0);
    });
    for (const sum of sums.values()) {
      const norm = Math.hypot(...sum) || 1;
      for (let d = 0; d < sum.length; d++) sum[d] = (sum[d] ?? 0) / norm;
    }
    return { vectors: sums, model: model.name };
  }

  dispose(): Promise<void> {
    return this.#embeddings.dispose();
  }
}
