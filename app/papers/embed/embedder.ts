// Sentence embeddings from a local model folder with @huggingface/transformers' feature-extraction
// pipeline: strictly local files (remote models off, local_files_only), mean pooling and L2
// normalisation, in batches. Runs in the engine process (onnxruntime-node), never in the renderer.
import type { FeatureExtractionPipeline } from '@huggingface/transformers';
import { EmbeddingModelLoadError, EmbeddingModelRunError } from './errors.ts';
import type { ModelFolder } from './model-folder.ts';

/** What the map needs from a model: unit vectors for texts, and a way to let the model go. */
export interface Embedder {
  readonly model: ModelFolder;
  embed(texts: readonly string[]): Promise<Float32Array[]>;
  dispose(): Promise<void>;
}

export type EmbedderLoader = (model: ModelFolder) => Promise<Embedder>;

/** Texts per forward pass: large enough to amortise a call, small enough to bound padding. */
export const EMBED_BATCH = 16;

async function loadPipeline(model: ModelFolder): Promise<FeatureExtractionPipeline> {
  const transformers = await import('@huggingface/transformers');
  const { env } = transformers;
  env.allowRemoteModels = false;
  env.allowLocalModels = true;
  // The id is the absolute folder itself (as training/engine's tokenizer loads it), so every user
  // of this process-wide `env` sets the same values.
  env.localModelPath = '';
  // The generic overloads of pipeline() are too deep for the type checker; the task fixes the type.
  const create = transformers.pipeline as (
    task: 'feature-extraction',
    id: string,
    options: Record<string, unknown>,
  ) => Promise<FeatureExtractionPipeline>;
  return create('feature-extraction', model.path, {
    local_files_only: true,
    dtype: 'fp32',
    device: 'cpu',
  });
}

function detail(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

class PipelineEmbedder implements Embedder {
  readonly model: ModelFolder;
  readonly #pipeline: FeatureExtractionPipeline;

  constructor(model: ModelFolder, pipeline: FeatureExtractionPipeline) {
    this.model = model;
    this.#pipeline = pipeline;
  }

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    const vectors: Float32Array[] = [];
    for (let start = 0; start < texts.length; start += EMBED_BATCH) {
      const batch = texts.slice(start, start + EMBED_BATCH);
      try {
        const output = await this.#pipeline([...batch], { pooling: 'mean', normalize: true });
        const [rows = 0, width = 0] = output.dims;
        const data = output.data as Float32Array;
        for (let row = 0; row < rows; row++) {
          vectors.push(data.slice(row * width, (row + 1) * width));
        }
        output.dispose();
      } catch (error) {
        throw new EmbeddingModelRunError(this.model.path, detail(error));
      }
    }
    return vectors;
  }

  async dispose(): Promise<void> {
    await this.#pipeline.dispose();
  }
}

/** Loads the folder's model; EmbeddingModelLoadError says why it could not. */
export const loadEmbedder: EmbedderLoader = async (model) => {
  try {
    return new PipelineEmbedder(model, await loadPipeline(model));
  } catch (error) {
    throw new EmbeddingModelLoadError(model.path, detail(error));
  }
};
