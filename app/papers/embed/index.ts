// app/papers/embed: sentence embeddings of passages from a local model folder (transformers.js,
// local files only, in a process of its own), cached in the workspace, for the map's `embeddings-pca` method.
export * from './errors.ts';
export {
  checkModelFolder,
  MODEL_FILES,
  type ModelFolder,
  type ModelTypeCheck,
} from './model-folder.ts';
// Not loadEmbedder or knownModelType: they import transformers.js, which only the embedding
// process (embed-child.ts, spawned by app/host) may load.
export type { Embedder, EmbedderLoader } from './embedder.ts';
export {
  EmbedRequest,
  EmbedReply,
  decodeVector,
  embedChild,
  encodeVector,
} from './embed-protocol.ts';
export { EmbeddingCache, textHash } from './embedding-cache.ts';
export { EmbeddingMaps, type EmbeddingMapsOptions } from './embedding-map.ts';
