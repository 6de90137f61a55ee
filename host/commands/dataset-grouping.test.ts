// Dataset generation groups papers by the map's embeddings once a model is set in Settings (each
// paper the mean of its passages' vectors), by TF-IDF without one, and by TF-IDF with the reason
// when the model cannot embed; the generate answer says which.
import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type {
  ApiEvent,
  CommandName,
  CommandRequest,
  CommandResponse,
} from '../../app/api/index.ts';
import { groupPapers, mostSimilarByVectors } from '../../app/evidence/index.ts';
import { writeTinyModel } from '../../app/papers/embed/fixtures/tiny-model.ts';
import { openWorkspace, type Workspace } from '../../app/store/index.ts';
import { composeEngine, type Engine } from '../compose/compose.ts';

let dir: string;
let workspace: Workspace;
let engine: Engine;
let modelDir: string;

async function call<C extends CommandName>(
  command: C,
  payload: CommandRequest<C>,
): Promise<CommandResponse<C>> {
  const frame = await engine.host.handle({ kind: 'request', id: 1, command, payload });
  if (!frame.ok) throw Object.assign(new Error(frame.error.message), frame.error);
  return frame.result as CommandResponse<C>;
}

const topics = [
  'Transformer language models use attention over training data',
  'Ocean river climate with rain and weather',
  'Attention heads in large language models',
  'Rainfall and rivers in a warming climate',
];

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rlm-grouping-'));
  workspace = openWorkspace(join(dir, 'workspace'));
  engine = composeEngine({ workspace, shell: 'serve' });
  modelDir = writeTinyModel(join(dir, 'tiny-model'));
  const qasper = Object.fromEntries(
    topics.map((words, i) => [
      `p${String(i + 1)}`,
      {
        title: words,
        abstract: `${words}.`,
        full_text: [{ section_name: 'Intro', paragraphs: [`${words} (part 1).`, `${words}.`] }],
      },
    ]),
  );
  await engine.papers.importBytes('topics', [
    { name: 'topics.json', data: new TextEncoder().encode(JSON.stringify(qasper)) },
  ]);
  writeFileSync(
    join(dir, 'teacher.json'),
    JSON.stringify({ '0:dataset': ['{"questions": []}', '{"questions": []}'] }),
  );
});
afterEach(async () => {
  await engine.dispose();
  workspace.close();
  rmSync(dir, { recursive: true, force: true });
});

async function generate(name: string) {
  const finished = new Promise<ApiEvent>((resolve) => {
    const stop = engine.host.onEvent((event) => {
      if (event.kind === 'dataset.finished' && event.dataset === name) {
        stop();
        resolve(event);
      }
    });
  });
  const started = await call('datasets.generate', {
    name,
    options: {
      set: 'topics',
      teacher: `scripted:${join(dir, 'teacher.json')}`,
      groupSize: 2,
      perGroup: 3,
      seed: 0,
      validation: 0,
      maxCharsPerPaper: 12_000,
    },
  });
  expect(await finished).toMatchObject({ status: 'done' });
  const { outcomes } = await call('datasets.report', { dataset: name });
  return { grouping: started.grouping, groups: outcomes.map((o) => o.paperIds) };
}

describe('grouping papers for generation', () => {
  it('uses TF-IDF without a model, the map’s embeddings with one', async () => {
    const tfidf = await generate('by-tfidf');
    expect(tfidf.grouping).toEqual({ method: 'tfidf', model: null, fallback: null });
    expect(tfidf.groups.flat().sort()).toEqual(['p1', 'p2', 'p3', 'p4']);

    await call('settings.update', { embeddingModel: modelDir });
    const embedded = await generate('by-embeddings');
    expect(embedded.grouping).toEqual({
      method: 'embeddings',
      model: 'tiny-model',
      fallback: null,
    });
    const vectors = await engine.paperVectors('topics');
    expect([...(vectors?.vectors.keys() ?? [])].sort()).toEqual(['p1', 'p2', 'p3', 'p4']);
    for (const v of vectors?.vectors.values() ?? []) expect(Math.hypot(...v)).toBeCloseTo(1, 5);
    const ranking = mostSimilarByVectors(vectors?.vectors ?? new Map(), 3);
    const papers = ['p1', 'p2', 'p3', 'p4'].map((id) => ({ id, text: '' }));
    expect(embedded.groups).toEqual(groupPapers(papers, 2, 0, ranking).map((g) => g.paperIds));
  });

  it('falls back to TF-IDF with the reason when the model cannot embed', async () => {
    await call('settings.update', { embeddingModel: modelDir });
    unlinkSync(join(modelDir, 'tokenizer.json'));
    const { grouping, groups } = await generate('fallback');
    expect(grouping).toMatchObject({
      method: 'tfidf',
      model: null,
      fallback: { name: 'EmbeddingModelFolderError' },
    });
    expect(groups).toHaveLength(2);
  });
});

describe('mostSimilarByVectors', () => {
  it('ranks by cosine with ties broken by id', () => {
    const unit = (x: number, y: number) =>
      new Float32Array([x, y].map((v) => v / Math.hypot(x, y)));
    const vectors = new Map([
      ['c', unit(1, 0.1)],
      ['a', unit(1, 0)],
      ['b', unit(0, 1)],
      ['d', unit(1, 0)],
    ]);
    const ranking = mostSimilarByVectors(vectors, 3);
    expect(ranking.get('a')).toEqual(['d', 'c', 'b']);
    expect(ranking.get('b')).toEqual(['c', 'a', 'd']);
    expect(mostSimilarByVectors(vectors, 1).get('d')).toEqual(['a']);
  });
});
