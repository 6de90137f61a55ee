// Whether transformers.js has a model class for a config's model_type. Imports transformers.js,
// so only the embedding process and tests load this file (the engine asks through the process).
import type { ModelTypeCheck } from './model-folder.ts';

export const knownModelType: ModelTypeCheck = async (modelType) => {
  const { AutoModel } = await import('@huggingface/transformers');
  return AutoModel.MODEL_CLASS_MAPPINGS.some((mapping) => mapping.has(modelType));
};
