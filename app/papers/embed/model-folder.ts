// Checks that a folder is a local sentence-embedding model in transformers.js layout before it is
// saved in Settings or loaded: the files exist, config.json names a model type transformers.js
// knows (asked through `knownModelType`: transformers.js itself loads only in the embedding
// process). Nothing here downloads; the check reads only the folder.
import { readFile, stat } from 'node:fs/promises';
import { basename, isAbsolute, join } from 'node:path';
import { EmbeddingModelFolderError, EmbeddingModelTypeError } from './errors.ts';

export const MODEL_FILES = ['config.json', 'tokenizer.json', join('onnx', 'model.onnx')] as const;

export interface ModelFolder {
  /** The absolute path of the folder. */
  path: string;
  /** What the UI calls it: the folder's name. */
  name: string;
  modelType: string;
  /** Changes whenever the weights, config or tokenizer change: keys the embedding cache. */
  fingerprint: string;
}

async function fileSize(folder: string, file: string): Promise<{ size: number; mtimeMs: number }> {
  try {
    const info = await stat(join(folder, file));
    if (!info.isFile()) throw new EmbeddingModelFolderError(folder, `'${file}' is not a file`);
    if (info.size === 0) throw new EmbeddingModelFolderError(folder, `'${file}' is empty`);
    return { size: info.size, mtimeMs: Math.round(info.mtimeMs) };
  } catch (error) {
    if (error instanceof EmbeddingModelFolderError) throw error;
    throw new EmbeddingModelFolderError(folder, `'${file}' is missing`);
  }
}

function readModelType(folder: string, config: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(config) as unknown;
  } catch {
    throw new EmbeddingModelFolderError(folder, 'config.json is not valid JSON');
  }
  const modelType =
    typeof parsed === 'object' && parsed !== null && 'model_type' in parsed
      ? parsed.model_type
      : undefined;
  if (typeof modelType !== 'string' || modelType.length === 0) {
    throw new EmbeddingModelFolderError(folder, 'config.json has no model_type');
  }
  return modelType;
}

/** Whether transformers.js has a model class for a model type (asked where it is loaded). */
export type ModelTypeCheck = (modelType: string) => Promise<boolean>;

/**
 * The folder's facts, or EmbeddingModelFolderError / EmbeddingModelTypeError naming the problem.
 * Without `knownModelType` the type is not checked (the map does so: a model that once loaded has
 * a known type, and one that does not load falls back by name anyway).
 */
export async function checkModelFolder(
  folder: string,
  knownModelType?: ModelTypeCheck,
): Promise<ModelFolder> {
  if (!isAbsolute(folder)) {
    throw new EmbeddingModelFolderError(folder, 'the path is not absolute');
  }
  const info = await stat(folder).catch(() => undefined);
  if (!info) throw new EmbeddingModelFolderError(folder, 'the folder does not exist');
  if (!info.isDirectory())
    throw new EmbeddingModelFolderError(folder, 'it is a file, not a folder');
  const sizes = await Promise.all(MODEL_FILES.map((file) => fileSize(folder, file)));
  const config = await readFile(join(folder, 'config.json'), 'utf8');
  const modelType = readModelType(folder, config);
  if (knownModelType && !(await knownModelType(modelType)))
    throw new EmbeddingModelTypeError(folder, modelType);
  const fingerprint = JSON.stringify({ folder, config, sizes });
  return { path: folder, name: basename(folder), modelType, fingerprint };
}
