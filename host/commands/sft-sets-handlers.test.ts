// Teacher traces and SFT sets through the host, over a generated dataset: the split as a workspace
// file, a scripted teacher RLM over it as an eval (a second request resumes it), an SFT set through
// the filter and the cap with every run's reason, sets following their dataset's rename, the base
// models the Train view offers, and the named errors for what does not exist.
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiEvent, CommandName, SftSet } from '../../app/api/index.ts';
import { fakeSandbox } from '../../app/rlm/fake-sandbox.test-support.ts';
import { openWorkspace, type Workspace } from '../../app/store/index.ts';
import { composeEngine, type Engine } from '../compose/compose.ts';

let dir: string;
let workspace: Workspace;
let engine: Engine;
let id = 0;

async function call<T>(command: CommandName, payload: unknown): Promise<T> {
  const frame = await engine.host.handle({ kind: 'request', id: ++id, command, payload });
  if (!frame.ok) throw new Error(`${frame.error.name}: ${frame.error.message}`);
  return frame.result as T;
}

function next(kind: ApiEvent['kind']): Promise<ApiEvent> {
  return new Promise((resolve) => {
    const stop = engine.host.onEvent((event) => {
      if (event.kind === kind) {
        stop();
        resolve(event);
      }
    });
  });
}

const encoder = 'We use a BiLSTM encoder with two layers.';
const decoder = 'Our decoder attends to every encoder state.';

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rlm-sft-sets-'));
  const paper = (title: string, sentence: string) => ({
    title,
    abstract: `About ${title}.`,
    full_text: [{ section_name: 'Method', paragraphs: [sentence] }],
    qas: [],
  });
  writeFileSync(
    join(dir, 'papers.json'),
    JSON.stringify({ a1: paper('Encoders', encoder), a2: paper('Decoders', decoder) }),
  );
  const questions = [
    ['How many layers does the encoder have?', 'a1', encoder],
    ['Which recurrent network reads the input?', 'a1', encoder],
    ['What does the decoder attend to?', 'a2', decoder],
  ].map(([question, paperId, text]) => ({ question, evidence: [{ paperId, text }] }));
  writeFileSync(
    join(dir, 'teacher.json'),
    JSON.stringify({ '0:dataset': [JSON.stringify({ questions })] }),
  );
  // The teacher RLM answers every question with the encoder sentence: right twice, wrong once.
  writeFileSync(
    join(dir, 'rlm.json'),
    JSON.stringify({ '0': [`\`\`\`repl\n${JSON.stringify({ final: [encoder] })}\n\`\`\``] }),
  );
  workspace = openWorkspace(join(dir, 'ws'));
  engine = composeEngine({
    workspace,
    shell: 'serve',
    sandbox: (callbacks) => Promise.resolve(fakeSandbox(callbacks)),
  });
  await engine.papers.importPaths('tiny', [join(dir, 'papers.json')]);
  const finished = next('dataset.finished');
  await call('datasets.generate', {
    name: 'mine',
    options: { set: 'tiny', teacher: `scripted:${join(dir, 'teacher.json')}`, validation: 0 },
  });
  expect(await finished).toMatchObject({ status: 'done', summary: { questions: 3 } });
});
afterAll(async () => {
  await engine.dispose();
  workspace.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('teacher traces and SFT sets', () => {
  it('writes the split, runs the teacher as a resumable eval and filters its runs into a set', async () => {
    const file = await call<{ path: string; rows: number }>('datasets.splitFile', {
      dataset: 'mine',
    });
    expect(file.rows).toBe(3);
    expect(file.path.startsWith(join(workspace.dir, 'datasets'))).toBe(true);
    expect(readFileSync(file.path, 'utf8').trim().split('\n')).toHaveLength(3);

    const teacher = `scripted:${join(dir, 'rlm.json')}`;
    const finished = next('eval.finished');
    const started = await call<{ evalId: string; total: number; alreadyDone: number }>(
      'datasets.traces',
      { dataset: 'mine', teacher },
    );
    expect(started).toMatchObject({ total: 3, alreadyDone: 0 });
    expect(await finished).toMatchObject({ status: 'done' });
    const again = next('eval.finished');
    const resumed = await call<{ evalId: string; alreadyDone: number }>('datasets.traces', {
      dataset: 'mine',
      teacher,
    });
    expect(resumed).toMatchObject({ evalId: started.evalId, alreadyDone: 3 });
    await again;

    const { set } = await call<{ set: SftSet }>('sftSets.make', {
      dataset: 'mine',
      evalId: started.evalId,
      name: 'cold start',
      cap: 1,
    });
    expect(set).toMatchObject({ name: 'cold start', dataset: 'mine', accepted: 1, considered: 3 });
    expect(set.runs.map((r) => [r.accepted, r.reason])).toEqual([
      [true, null],
      [false, 'over the cap of 1 runs'],
      [false, 'span F1 is 0, not above 0'],
    ]);
    expect(set.runs.every((r) => r.runId !== null)).toBe(true);

    await call('datasets.rename', { dataset: 'mine', name: 'ours' });
    const { sets } = await call<{ sets: { name: string; dataset: string }[] }>('sftSets.list', {
      dataset: 'ours',
    });
    expect(sets).toMatchObject([{ name: 'cold start', dataset: 'ours' }]);
    expect((await call<{ set: SftSet }>('sftSets.get', { set: 'cold start' })).set.runs).toEqual(
      set.runs,
    );
    await expect(
      call('sftSets.make', { dataset: 'ours', evalId: started.evalId, name: 'cold start' }),
    ).rejects.toThrow(/SftSetNameTakenError/);
    expect(await call('sftSets.delete', { set: 'cold start' })).toEqual({ deleted: true });
    expect((await call<{ sets: unknown[] }>('sftSets.list', {})).sets).toEqual([]);
  }, 60_000);

  it('offers the models under <workspace>/models and the demo by name', async () => {
    const models = join(workspace.dir, 'models');
    const shared = new URL('../../../shared/data/models/stories260K/', import.meta.url).pathname;
    mkdirSync(join(models, 'stories'), { recursive: true });
    copyFileSync(join(shared, 'stories260K.bin'), join(models, 'stories', 'stories260K.bin'));
    copyFileSync(join(shared, 'tok512.bin'), join(models, 'stories', 'tok512.bin'));
    mkdirSync(join(models, 'qwen'));
    writeFileSync(join(models, 'qwen', 'config.json'), '{}');
    writeFileSync(join(models, 'qwen', 'model.safetensors'), '');
    mkdirSync(join(models, 'empty'));
    const { models: found } = await call<{ models: { path: string; format: string }[] }>(
      'train.models',
      {},
    );
    expect(found.map((m) => [m.path, m.format])).toEqual([
      [join(models, 'qwen'), 'hugging-face'],
      [join(models, 'stories', 'stories260K.bin'), 'llama2c'],
      ['toy:bigram', 'demo'],
    ]);
  });

  it('names what does not exist', async () => {
    await expect(call('sftSets.get', { set: 'nothing' })).rejects.toThrow(/SftSetNotFoundError/);
    await expect(
      call('sftSets.make', { dataset: 'ours', evalId: 'no-such-eval', name: 'x' }),
    ).rejects.toThrow(/EvalNotFoundError/);
    await expect(
      call('datasets.traces', { dataset: 'nothing', teacher: 'scripted:x' }),
    ).rejects.toThrow(/DatasetNotFoundError/);
  });
});
