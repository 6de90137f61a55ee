// The map through the engine host: the embedding model set in Settings (checked before saving),
// the map drawn from it, the switch back to TF-IDF, and the fallback when the model breaks.
import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CommandName, CommandRequest, CommandResponse } from '../../app/api/index.ts';
import { writeTinyModel } from '../../app/papers/embed/fixtures/tiny-model.ts';
import { openWorkspace, type Workspace } from '../../app/store/index.ts';
import { composeEngine, type Engine } from '../compose/compose.ts';

let dir: string;
let workspace: Workspace;
let engine: Engine;
/** One request through the host: its result, or its error (name and message) thrown. */
const api = {
  async call<C extends CommandName>(
    command: C,
    payload: CommandRequest<C>,
  ): Promise<CommandResponse<C>> {
    const frame = await engine.host.handle({ kind: 'request', id: 1, command, payload });
    if (!frame.ok) throw Object.assign(new Error(frame.error.message), frame.error);
    return frame.result as CommandResponse<C>;
  },
};
let modelDir: string;

const paragraphs = (words: string) =>
  Array.from({ length: 4 }, (_, i) => `${words} (part ${String(i + 1)}).`);
const qasper = {
  p1: {
    title: 'Attention models',
    abstract: 'A language model with attention.',
    full_text: [
      {
        section_name: 'Intro',
        paragraphs: paragraphs('Transformer language models use attention over training data'),
      },
    ],
  },
  p2: {
    title: 'Rivers and rain',
    abstract: 'Weather over the ocean.',
    full_text: [
      {
        section_name: 'Intro',
        paragraphs: paragraphs('Ocean river climate with rain and weather'),
      },
    ],
  },
};

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rlm-map-host-'));
  workspace = openWorkspace(join(dir, 'workspace'));
  engine = composeEngine({ workspace, shell: 'serve' });
  modelDir = writeTinyModel(join(dir, 'tiny-model'));
  await engine.papers.importBytes('topics', [
    { name: 'topics.json', data: new TextEncoder().encode(JSON.stringify(qasper)) },
  ]);
});
afterEach(async () => {
  await engine.dispose();
  workspace.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('papers.map with an embedding model', () => {
  it('draws with TF-IDF while no model is set', async () => {
    const map = await api.call('papers.map', { set: 'topics' });
    expect(map).toMatchObject({ method: 'tfidf-pca', embeddingModel: null });
    expect(map.fallback).toBeUndefined();
    const asked = await api.call('papers.map', { set: 'topics', method: 'embeddings-pca' });
    expect(asked).toMatchObject({
      method: 'tfidf-pca',
      fallback: { name: 'EmbeddingModelNotSetError' },
    });
  });

  it('refuses a folder that is not a model, by name, and keeps the setting', async () => {
    unlinkSync(join(modelDir, 'tokenizer.json'));
    await expect(api.call('settings.update', { embeddingModel: modelDir })).rejects.toMatchObject({
      name: 'EmbeddingModelFolderError',
    });
    expect(workspace.settings.get().embeddingModel).toBeNull();
  });

  it('draws from embeddings once a model is set, and switches back to TF-IDF', async () => {
    await api.call('settings.update', { embeddingModel: modelDir });
    const map = await api.call('papers.map', { set: 'topics' });
    expect(map).toMatchObject({
      method: 'embeddings-pca',
      model: 'tiny-model',
      embeddingModel: 'tiny-model',
    });
    const tfidf = await api.call('papers.map', { set: 'topics', method: 'tfidf-pca' });
    expect(tfidf).toMatchObject({ method: 'tfidf-pca', embeddingModel: 'tiny-model' });
    expect(tfidf.points.map((p) => p.start)).toEqual(map.points.map((p) => p.start));
  });

  it('falls back to TF-IDF with the reason when the model breaks', async () => {
    await api.call('settings.update', { embeddingModel: modelDir });
    writeFileSync(join(modelDir, 'onnx', 'model.onnx'), 'not a model any more');
    const broken = await api.call('papers.map', { set: 'topics' });
    expect(broken).toMatchObject({
      method: 'tfidf-pca',
      embeddingModel: 'tiny-model',
      fallback: { name: 'EmbeddingModelLoadError' },
    });
    expect(broken.points.length).toBeGreaterThan(0);
    rmSync(join(modelDir, 'onnx'), { recursive: true });
    const gone = await api.call('papers.map', { set: 'topics' });
    expect(gone.fallback).toMatchObject({
      name: 'EmbeddingModelFolderError',
      message: expect.stringContaining('is missing') as unknown,
    });
  });
});
