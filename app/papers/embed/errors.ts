// Named errors of the embedding model: the folder set in Settings is checked before it is saved,
// and a model that fails later (load or run) makes the map fall back to TF-IDF with this reason.
export class EmbeddingModelFolderError extends Error {
  override readonly name = 'EmbeddingModelFolderError';
  readonly folder: string;
  constructor(folder: string, problem: string) {
    super(
      `'${folder}' is not an embedding model folder: ${problem}; choose a Hugging Face model folder in transformers.js layout (config.json, tokenizer.json, onnx/model.onnx)`,
    );
    this.folder = folder;
  }
}

export class EmbeddingModelTypeError extends Error {
  override readonly name = 'EmbeddingModelTypeError';
  readonly modelType: string;
  constructor(folder: string, modelType: string) {
    super(
      `'${folder}' holds a model of type '${modelType}', which transformers.js does not know; choose a sentence-embedding model it supports (bert, mpnet, roberta, ...)`,
    );
    this.modelType = modelType;
  }
}

export class EmbeddingModelLoadError extends Error {
  override readonly name = 'EmbeddingModelLoadError';
  constructor(folder: string, detail: string) {
    super(
      `the embedding model in '${folder}' could not be loaded: ${detail}; check that onnx/model.onnx is a complete ONNX export of this model`,
    );
  }
}

export class EmbeddingModelRunError extends Error {
  override readonly name = 'EmbeddingModelRunError';
  constructor(folder: string, detail: string) {
    super(
      `the embedding model in '${folder}' failed while embedding passages: ${detail}; the map uses TF-IDF until the model is fixed or changed in Settings`,
    );
  }
}

export class EmbeddingModelNotSetError extends Error {
  override readonly name = 'EmbeddingModelNotSetError';
  constructor() {
    super('no embedding model is set; choose a local model folder in Settings > Embeddings');
  }
}
