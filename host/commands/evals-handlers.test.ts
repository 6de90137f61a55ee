// The evals commands through the host, with a scripted model and a stand-in REPL: a SkyRL dataset
// whose papers become a workspace set, results and report, listing, datasets, missing sets.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ApiEvent, CommandName } from '../../app/api/index.ts';
import { fakeSandbox } from '../../app/rlm/fake-sandbox.test-support.ts';
import { openWorkspace, type Workspace } from '../../app/store/index.ts';
import { composeEngine, type Engine } from '../compose/compose.ts';

let dir: string;
let workspace: Workspace;
let engine: Engine;
let events: ApiEvent[];
let id = 0;

async function call<T>(command: CommandName, payload: unknown): Promise<T> {
  const frame = await engine.host.handle({ kind: 'request', id: ++id, command, payload });
  if (!frame.ok) throw new Error(`${frame.error.name}: ${frame.error.message}`);
  return frame.result as T;
}

function finished(evalId: string): Promise<ApiEvent> {
  return new Promise((resolve) => {
    const stop = engine.host.onEvent((event) => {
      if (event.kind === 'eval.finished' && event.evalId === evalId) {
        stop();
        resolve(event);
      }
    });
  });
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rlm-evals-host-'));
  workspace = openWorkspace(join(dir, 'ws'));
  engine = composeEngine({
    workspace,
    shell: 'serve',
    sandbox: (callbacks) => Promise.resolve(fakeSandbox(callbacks)),
  });
  events = [];
  engine.host.onEvent((event) => events.push(event));
});
afterEach(async () => {
  await engine.dispose();
  workspace.close();
  rmSync(dir, { recursive: true, force: true });
});

const row = (question: string, evidence: string) => ({
  prompt: `Find evidence for the query: ${question}\nReturn a list.`,
  reward_spec: { evidence: [{ paperId: 'p1', selections: [{ text: evidence }] }] },
  extra_info: {
    context_text: JSON.stringify({
      p1: '### PAPER: Encoders\n<abstract>\nWe compare encoders.\n</abstract>\nWe use a BiLSTM encoder. It has 2 layers.',
      p2: '### PAPER: Other\nUnrelated text about parsing.',
    }),
  },
});

describe('evals commands', () => {
  it('runs a SkyRL dataset over a set made from its papers and reports per question', async () => {
    const dataset = join(dir, 'tiny.jsonl');
    writeFileSync(
      dataset,
      [
        row('Which encoder?', 'We use a BiLSTM encoder.'),
        row('How many layers?', 'It has 2 layers.'),
      ]
        .map((r) => JSON.stringify(r))
        .join('\n'),
    );
    const model = join(dir, 'model.json');
    writeFileSync(
      model,
      JSON.stringify({ '0': ['```repl\n{"final": ["We use a BiLSTM encoder."]}\n```'] }),
    );
    const judge = join(dir, 'judge.json');
    writeFileSync(
      judge,
      JSON.stringify({ '0:judge': ['{"precision": 10, "recall": 8, "reasoning": "ok"}'] }),
    );
    const started = await call<{ evalId: string; total: number; alreadyDone: number }>(
      'evals.start',
      {
        dataset,
        format: 'skyrl',
        model: `scripted:${model}`,
        judge: `scripted:${judge}`,
        concurrency: 2,
      },
    );
    expect(started).toMatchObject({ total: 2, alreadyDone: 0 });
    const end = await finished(started.evalId);
    expect(end).toMatchObject({ kind: 'eval.finished', status: 'done' });
    expect(events.filter((event) => event.kind === 'eval.progress')).toHaveLength(2);

    const got = await call<{
      eval: { status: string; done: number; datasetName: string };
      report: { meanSpanF1: number; meanRubric: number; evidenceF1: number | null };
      results: {
        questionId: string;
        spanF1: number;
        runId: string;
        spans: { location: unknown }[];
      }[];
    }>('evals.get', { evalId: started.evalId });
    expect(got.eval).toMatchObject({ status: 'done', done: 2, datasetName: 'tiny' });
    expect(got.results.map((r) => [r.questionId, r.spanF1])).toEqual([
      ['line-1', 1],
      ['line-2', 0],
    ]);
    expect(got.report).toMatchObject({ meanSpanF1: 0.5, meanRubric: 0.9, evidenceF1: null });
    expect(got.results[0]?.spans[0]?.location).toMatchObject({ paperId: 'p1', method: 'exact' });
    // The papers are a workspace set now, and the runs carry the score.
    expect(engine.papers.texts('skyrl-tiny').map((paper) => paper.id)).toEqual(['p1', 'p2']);
    expect(engine.runStore.get(got.results[0]?.runId ?? '').score).toBeCloseTo(0.9, 12);

    const { evals } = await call<{ evals: { id: string }[] }>('evals.list', {});
    expect(evals.map((e) => e.id)).toEqual([started.evalId]);
    const { datasets } = await call<{ datasets: { path: string; format: string }[] }>(
      'evals.datasets',
      {},
    );
    expect(datasets[0]).toMatchObject({ path: dataset, format: 'skyrl' });
    expect(datasets.some((d) => d.format === 'qasper')).toBe(true);

    const again = await call<{ alreadyDone: number }>('evals.start', {
      dataset,
      format: 'skyrl',
      model: `scripted:${model}`,
      judge: `scripted:${judge}`,
    });
    expect(again.alreadyDone).toBe(2);
  });

  it('stops on evals.cancel, keeps what finished, and resumes the rest', async () => {
    const dataset = join(dir, 'five.jsonl');
    writeFileSync(
      dataset,
      Array.from({ length: 5 }, (_, i) =>
        JSON.stringify({
          ...row(`Question ${String(i)}?`, 'It has 2 layers.'),
          extra_info: { ...row('', '').extra_info, id: `q${String(i)}` },
        }),
      ).join('\n'),
    );
    const model = join(dir, 'slow.json');
    writeFileSync(
      model,
      JSON.stringify({
        delayMs: 150,
        responses: { '0': ['```repl\n{"final": ["It has 2 layers."]}\n```'] },
      }),
    );
    const request = { dataset, format: 'skyrl', model: `scripted:${model}`, concurrency: 1 };
    const started = await call<{ evalId: string }>('evals.start', request);
    const end = finished(started.evalId);
    await new Promise<void>((resolve) => {
      const stop = engine.host.onEvent((event) => {
        if (event.kind === 'eval.progress' && event.evalId === started.evalId) {
          stop();
          resolve();
        }
      });
    });
    expect(await call('evals.cancel', { evalId: started.evalId })).toEqual({ canceled: true });
    expect(await end).toMatchObject({ status: 'canceled' });
    const stopped = await call<{ eval: { done: number }; results: { questionId: string }[] }>(
      'evals.get',
      {
        evalId: started.evalId,
      },
    );
    expect(stopped.eval.done).toBeGreaterThanOrEqual(1);
    expect(stopped.eval.done).toBeLessThan(5);
    // The canceled run left no row: a resume runs exactly the others.
    const again = await call<{ alreadyDone: number }>('evals.start', request);
    expect(again.alreadyDone).toBe(stopped.eval.done);
    await finished(started.evalId);
    const done = await call<{
      eval: { status: string; done: number };
      results: { questionId: string; spanF1: number }[];
    }>('evals.get', { evalId: started.evalId });
    expect(done.eval).toMatchObject({ status: 'done', done: 5 });
    expect(done.results.map((r) => r.questionId)).toEqual(['q0', 'q1', 'q2', 'q3', 'q4']);
    expect(done.results.every((r) => r.spanF1 === 1)).toBe(true);
  });

  it('names a missing paper set before running anything', async () => {
    const dataset = join(dir, 'ours.jsonl');
    writeFileSync(
      dataset,
      JSON.stringify({
        id: 'q',
        question: '?',
        set: 'nowhere',
        gold: [{ paperId: 'a', text: 'x' }],
      }),
    );
    await expect(
      call('evals.start', { dataset, format: 'ours', model: 'scripted:/nonexistent.json' }),
    ).rejects.toThrow(/InvalidScriptError|PaperSetNotFoundError/);
    const model = join(dir, 'm.json');
    writeFileSync(model, '{}');
    await expect(
      call('evals.start', { dataset, format: 'ours', model: `scripted:${model}` }),
    ).rejects.toThrow(/PaperSetNotFoundError/);
    expect((await call<{ evals: unknown[] }>('evals.list', {})).evals).toEqual([]);
  });
});
