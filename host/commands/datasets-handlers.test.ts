// The datasets commands over a real workspace: a generation answers at once and streams its groups
// as dataset.progress, ends with dataset.finished; filters, hand edits, export and import; a
// second generate of a running dataset, and bad input, are named errors.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiEvent } from '../../app/api/index.ts';
import { GenerationOptions } from '../../app/api/index.ts';
import { ScriptedProvider } from '../../app/models/index.ts';
import { PaperLibrary } from '../../app/papers/index.ts';
import { openWorkspace, type Workspace } from '../../app/store/index.ts';
import { datasetService, GenerationRunningError, GoldSpanInputError } from './datasets-handlers.ts';

let dir: string;
let workspace: Workspace;
let papers: PaperLibrary;
const events: ApiEvent[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rlm-datasets-handlers-'));
  const file = join(dir, 'papers.json');
  const paper = (sentence: string) => ({
    title: 'T',
    abstract: 'A.',
    full_text: [{ section_name: 'Method', paragraphs: [sentence] }],
    qas: [],
  });
  writeFileSync(
    file,
    JSON.stringify({ b1: paper('We train for ten epochs.'), b2: paper('We use dropout of 0.1.') }),
  );
  workspace = openWorkspace(join(dir, 'ws'));
  papers = new PaperLibrary(workspace.db);
  await papers.importPaths('two', [file]);
});
afterAll(async () => {
  await papers.dispose();
  workspace.close();
  rmSync(dir, { recursive: true, force: true });
});

const reply = JSON.stringify({
  questions: [
    {
      question: 'How long is training?',
      evidence: [{ paperId: 'b1', text: 'We train for ten epochs.' }],
    },
    {
      question: 'What dropout is used?',
      evidence: [{ paperId: 'b2', text: 'We use dropout of 0.1.' }],
    },
  ],
});

describe('datasets commands', () => {
  it('generate streams its groups and ends; get filters; edits, export and import round trip', async () => {
    const service = datasetService({
      db: workspace.db,
      papers,
      providers: () =>
        new ScriptedProvider({ '0:dataset': [reply] }, { spec: 'scripted:teacher', delayMs: 50 }),
      emit: (event) => events.push(event),
      now: () => 42,
    });
    const h = service.handlers;
    const options = GenerationOptions.parse({
      set: 'two',
      teacher: 'scripted:teacher',
      validation: 0,
    });
    const started = await h['datasets.generate']({ name: 'd', options });
    expect(started.dataset.name).toBe('d');
    await expect(h['datasets.generate']({ name: 'd', options })).rejects.toThrow(
      GenerationRunningError,
    );
    expect(() => h['datasets.delete']({ dataset: 'd' })).toThrow(GenerationRunningError);
    await service.settled();
    const kinds = events.map((e) => e.kind);
    expect(kinds).toEqual(['dataset.progress', 'dataset.finished']);
    const finished = events.at(-1);
    expect(finished).toMatchObject({ kind: 'dataset.finished', status: 'done', dataset: 'd' });
    const { questions } = await h['datasets.get']({ dataset: 'd', filter: {} });
    expect(questions.map((q) => q.question)).toEqual([
      'How long is training?',
      'What dropout is used?',
    ]);
    expect(
      (await h['datasets.get']({ dataset: 'd', filter: { text: 'dropout' } })).questions,
    ).toHaveLength(1);
    const first = questions[0];
    if (!first) throw new Error('no question');
    const edited = await h['datasets.editQuestion']({
      dataset: 'd',
      id: first.id,
      status: 'rejected',
    });
    expect(edited.question.status).toBe('rejected');
    expect(
      (await h['datasets.get']({ dataset: 'd', filter: { status: 'rejected' } })).questions,
    ).toHaveLength(1);
    const out = join(dir, 'd.jsonl');
    // Rejected questions stay out of the export.
    expect(await h['datasets.export']({ dataset: 'd', format: 'ours', path: out })).toEqual({
      rows: 1,
      path: out,
    });
    const imported = await h['datasets.import']({ path: out, format: 'ours', name: 'd2' });
    expect(imported.issues).toEqual([]);
    expect(imported.dataset.questions).toBe(1);
    expect((await h['datasets.report']({ dataset: 'd' })).outcomes[0]?.kept).toBe(2);
    expect((await h['datasets.rename']({ dataset: 'd2', name: 'copy' })).dataset.name).toBe('copy');
    const copied = (await h['datasets.get']({ dataset: 'copy', filter: {} })).questions[0];
    expect(await h['datasets.deleteQuestion']({ dataset: 'copy', id: copied?.id ?? '' })).toEqual({
      deleted: true,
    });
    expect(() => h['datasets.deleteQuestion']({ dataset: 'copy', id: 'nope' })).toThrow(
      /no question 'nope'/,
    );
  }, 30_000);

  it('refuses a generation over a set without papers, answering the command', async () => {
    const service = datasetService({
      db: workspace.db,
      papers,
      providers: () => new ScriptedProvider({}, { spec: 'scripted:none' }),
      emit: () => undefined,
      now: () => 1,
    });
    const options = GenerationOptions.parse({ set: 'nothing', teacher: 'scripted:none' });
    await expect(service.handlers['datasets.generate']({ name: 'x', options })).rejects.toThrow(
      /no paper set 'nothing'|has no papers/,
    );
    expect(await service.handlers['datasets.cancel']({ dataset: 'x' })).toEqual({
      canceled: false,
    });
  });

  it('makes a dataset by hand: gold spans must be the papers’ text, or nothing changes', async () => {
    const h = datasetService({
      db: workspace.db,
      papers,
      providers: () => new ScriptedProvider({}, { spec: 'scripted:none' }),
      emit: () => undefined,
      now: () => 7,
    }).handlers;
    expect((await h['datasets.create']({ name: 'by hand' })).dataset.questions).toBe(0);
    const text = papers.paper('two', 'b1').contextText;
    const start = text.indexOf('ten epochs');
    const span = { paperId: 'b1', start, end: start + 10, text: 'ten epochs' };
    const { question } = await h['datasets.addQuestion']({
      dataset: 'by hand',
      question: 'How long is training?',
      set: 'two',
      paperIds: ['b1', 'b2'],
      gold: [span],
      split: 'train',
    });
    expect(question).toMatchObject({
      gold: [span],
      provenance: { kind: 'hand', at: 7 },
      status: 'pending',
      group: null,
    });
    const add = (gold: (typeof span)[], paperIds = ['b1']) =>
      h['datasets.addQuestion']({
        dataset: 'by hand',
        question: 'Q?',
        set: 'two',
        paperIds,
        gold,
        split: 'train',
      });
    expect(() => add([{ ...span, text: 'ten epoch' }])).toThrow(/is not the gold span's text/);
    expect(() => add([{ ...span, paperId: 'b2' }])).toThrow(/not one of the question's papers/);
    expect(() => add([{ ...span, end: text.length + 5 }])).toThrow(GoldSpanInputError);
    expect(() => add([], ['b9'])).toThrow(/PaperNotFound|no paper 'b9'/);
    expect(() =>
      h['datasets.editQuestion']({
        dataset: 'by hand',
        id: question.id,
        gold: [{ ...span, start: span.start + 1, end: span.end + 1 }],
      }),
    ).toThrow(GoldSpanInputError);
    const stored = await h['datasets.get']({ dataset: 'by hand', filter: {} });
    expect(stored.questions).toEqual([question]);
  });
});
