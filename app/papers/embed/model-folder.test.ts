import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeTinyModel } from './fixtures/tiny-model.ts';
import { knownModelType } from './known-model-type.ts';
import { checkModelFolder } from './model-folder.ts';

let dir: string;
let model: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rlm-model-folder-'));
  model = writeTinyModel(join(dir, 'tiny-model'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('checkModelFolder', () => {
  it('accepts a transformers.js folder and names it', async () => {
    const folder = await checkModelFolder(model, knownModelType);
    expect(folder).toMatchObject({ path: model, name: 'tiny-model', modelType: 'bert' });
    const again = await checkModelFolder(model, knownModelType);
    expect(again.fingerprint).toBe(folder.fingerprint);
    writeFileSync(join(model, 'onnx', 'model.onnx'), 'changed weights');
    expect((await checkModelFolder(model, knownModelType)).fingerprint).not.toBe(
      folder.fingerprint,
    );
  });

  it.each(['config.json', 'tokenizer.json', join('onnx', 'model.onnx')])(
    'names a missing %s',
    async (file) => {
      unlinkSync(join(model, file));
      await expect(checkModelFolder(model, knownModelType)).rejects.toMatchObject({
        name: 'EmbeddingModelFolderError',
        message: expect.stringContaining(`'${file}' is missing`) as unknown,
      });
    },
  );

  it('names a folder that is not one', async () => {
    await expect(checkModelFolder('relative/model', knownModelType)).rejects.toMatchObject({
      name: 'EmbeddingModelFolderError',
      message: expect.stringContaining('not absolute') as unknown,
    });
    await expect(checkModelFolder(join(dir, 'nowhere'), knownModelType)).rejects.toMatchObject({
      message: expect.stringContaining('does not exist') as unknown,
    });
    await expect(
      checkModelFolder(join(model, 'config.json'), knownModelType),
    ).rejects.toMatchObject({
      message: expect.stringContaining('not a folder') as unknown,
    });
    writeFileSync(join(model, 'onnx', 'model.onnx'), '');
    await expect(checkModelFolder(model, knownModelType)).rejects.toMatchObject({
      message: expect.stringContaining("'onnx/model.onnx' is empty") as unknown,
    });
  });

  it('names a config without a known model type', async () => {
    writeFileSync(join(model, 'config.json'), '{ not json');
    await expect(checkModelFolder(model, knownModelType)).rejects.toMatchObject({
      name: 'EmbeddingModelFolderError',
      message: expect.stringContaining('not valid JSON') as unknown,
    });
    writeFileSync(join(model, 'config.json'), '{"hidden_size": 16}');
    await expect(checkModelFolder(model, knownModelType)).rejects.toMatchObject({
      message: expect.stringContaining('no model_type') as unknown,
    });
    writeFileSync(join(model, 'config.json'), '{"model_type": "frobnicator"}');
    await expect(checkModelFolder(model, knownModelType)).rejects.toMatchObject({
      name: 'EmbeddingModelTypeError',
      modelType: 'frobnicator',
    });
  });
});
