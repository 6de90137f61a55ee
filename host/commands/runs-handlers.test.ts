// runs.import / list filters / export / delete through the host, as a front end calls them.
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ApiEvent, CommandName, RunSummaryPayload } from '../../app/api/index.ts';
import { openWorkspace, type Workspace } from '../../app/store/index.ts';
import { fakeSandbox } from '../../app/rlm/fake-sandbox.test-support.ts';
import { composeEngine, type Engine } from '../compose/compose.ts';

const qasper = new URL(
  '../../../shared/data/qasper/qasper_test_v0.3_subset_papers_with_pdf.json',
  import.meta.url,
).pathname;
const realLog = new URL(
  '../../../shared/data/trajectories/alexzhang13-rlm-gpt4o-example.jsonl',
  import.meta.url,
).pathname;

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

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rlm-runs-host-'));
  workspace = openWorkspace(dir);
  engine = composeEngine({ workspace, shell: 'serve', now: () => 42 });
  events = [];
  engine.host.onEvent((event) => events.push(event));
});
afterEach(async () => {
  await engine.dispose();
  workspace.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('runs commands', () => {
  it('imports, filters, exports, re-imports under new ids and deletes', async () => {
    const report = await call<{ format: string; runs: { runId: string }[] }>('runs.import', {
      text: readFileSync(realLog, 'utf8'),
      name: 'example.jsonl',
    });
    expect(report.format).toBe('rlm-log');
    const ids = report.runs.map((run) => run.runId);
    expect(events).toEqual([{ kind: 'runs.changed', at: 42, change: 'imported', runIds: ids }]);
    const list = (payload: unknown) =>
      call<{ runs: RunSummaryPayload[] }>('runs.list', payload).then(({ runs }) =>
        runs.map((run) => run.question),
      );
    // The second run matches by its answer ('I pick the color blue.').
    expect(await list({ text: 'COLOR' })).toEqual(['Why did you pick that one?', 'Pick a color.']);
    expect(await list({ model: '4O', status: ['done'], maxDurationMs: 2000 })).toEqual([
      'Why did you pick that one?',
    ]);
    expect(await list({ status: ['failed'] })).toEqual([]);
    expect(await list({ source: 'rlm-log', limit: 2 })).toHaveLength(2);
    expect(await list({ from: Date.parse('2026-01-13T13:26:00Z') })).toHaveLength(2);

    const exported = await call<{ text: string; fileName: string }>('runs.export', {
      runIds: ids.slice(0, 2),
    });
    expect(exported.fileName).toBe('rlm-runs-2.jsonl');
    const again = await call<{ runs: { runId: string; renamedFrom: string | null }[] }>(
      'runs.import',
      { text: exported.text, format: 'ours' },
    );
    expect(again.runs.map((run) => run.renamedFrom)).toEqual(ids.slice(0, 2));
    expect(await list({})).toHaveLength(8);

    expect(await call('runs.delete', { runId: ids[0] })).toEqual({ deleted: true });
    expect(await call('runs.delete', { runId: ids[0] })).toEqual({ deleted: false });
    expect(events.at(-1)).toEqual({
      kind: 'runs.changed',
      at: 42,
      change: 'deleted',
      runIds: [ids[0]],
    });
    await expect(call('runs.events', { runId: ids[0] })).rejects.toThrow(/RunNotFoundError/);
  });

  it('creates synthetic runs, stored or streamed live and cancelable', async () => {
    const stored = await call<{ runId: string; events: number }>('runs.synthetic', {
      agents: 30,
      turns: 90,
    });
    expect(events.at(-1)).toMatchObject({
      kind: 'runs.changed',
      change: 'created',
      runIds: [stored.runId],
    });
    expect(
      (await call<{ events: unknown[] }>('runs.events', { runId: stored.runId })).events,
    ).toHaveLength(stored.events);
    const live = await call<{ runId: string }>('runs.synthetic', {
      agents: 30,
      turns: 90,
      live: true,
      eventsPerSecond: 1000,
    });
    await new Promise((resolve) => setTimeout(resolve, 60));
    await expect(call('runs.delete', { runId: live.runId })).rejects.toThrow(
      /RunStillRunningError/,
    );
    expect(await call('runs.cancel', { runId: live.runId })).toEqual({ canceled: true });
    await new Promise((resolve) => setTimeout(resolve, 60));
    const streamed = events.filter(
      (event) => event.kind === 'runs.event' && event.runId === live.runId,
    );
    expect(streamed.length).toBeGreaterThan(10);
    expect(streamed.at(-1)).toMatchObject({ event: { kind: 'run.finished', status: 'canceled' } });
    // seq is each event's index in the stored log.
    expect(streamed.map((event) => (event.kind === 'runs.event' ? event.seq : -1))).toEqual(
      streamed.map((_event, index) => index),
    );
    const log = await call<{ events: unknown[] }>('runs.events', { runId: live.runId });
    expect(log.events).toEqual(
      streamed.map((event) => (event.kind === 'runs.event' ? event.event : null)),
    );
  });

  it('answers runs.events as text with the same JSON as the handler, and names a missing run', async () => {
    const stored = await call<{ runId: string }>('runs.synthetic', { agents: 12, turns: 30 });
    const request = {
      kind: 'request',
      id: 99,
      command: 'runs.events',
      payload: { runId: stored.runId },
    };
    const asText = JSON.parse(await engine.host.handleText(request)) as unknown;
    const asObject = await engine.host.handle(request);
    expect(asObject.ok).toBe(true);
    expect(asText).toEqual(asObject);
    // Text and object answers agree for commands without a text answer, and for errors too.
    const list = { kind: 'request', id: 5, command: 'runs.list', payload: {} };
    expect(JSON.parse(await engine.host.handleText(list))).toEqual(await engine.host.handle(list));
    const missing = { ...request, payload: { runId: 'nope' } };
    expect(JSON.parse(await engine.host.handleText(missing))).toMatchObject({
      id: 99,
      ok: false,
      error: { name: 'RunNotFoundError' },
    });
    const invalid = { ...request, payload: { runId: 3 } };
    expect(JSON.parse(await engine.host.handleText(invalid))).toEqual(
      await engine.host.handle(invalid),
    );
  });

  it("gives a run's newest eval result (gold spans, scores), or null", async () => {
    const { runs } = await call<{ runs: { runId: string }[] }>('runs.import', {
      text: readFileSync(realLog, 'utf8'),
    });
    const runId = runs[0]?.runId ?? '';
    expect(await call('runs.evaluation', { runId })).toEqual({ result: null });
    workspace.db
      .prepare(
        `INSERT INTO evals (id, created_at, updated_at, status, dataset_path, dataset_name, format, options, model, total)
         VALUES ('e', 1, 1, 'done', 'd', 'd', 'ours', '{}', 'm', 1)`,
      )
      .run();
    const gold = [{ paperId: 'p', text: 'gold span', location: null }];
    workspace.db
      .prepare(
        `INSERT INTO eval_results (eval_id, question_id, seq, run_id, status, question, set_name, paper_ids, spans, gold,
           span_f1, rubric, latency_ms, input_tokens, output_tokens, finished_at)
         VALUES ('e', 'q', 0, ?, 'done', 'q', 's', '["p"]', '[]', ?, 0.5, 0.75, 1, 1, 1, 5)`,
      )
      .run(runId, JSON.stringify(gold));
    const { result } = await call<{ result: { gold: unknown; rubric: number } }>(
      'runs.evaluation',
      {
        runId,
      },
    );
    expect(result).toMatchObject({ gold, rubric: 0.75, evalId: 'e' });
    await expect(call('runs.evaluation', { runId: 'nope' })).rejects.toThrow(/RunNotFoundError/);
  });

  it('starts a run and forks it through the api; the fork streams like a live run', async () => {
    await engine.dispose();
    engine = composeEngine({
      workspace,
      shell: 'serve',
      now: () => 42,
      sandbox: (callbacks) => Promise.resolve(fakeSandbox(callbacks)),
    });
    events = [];
    engine.host.onEvent((event) => events.push(event));
    await engine.papers.importPaths('qasper', [qasper]);
    const script = join(dir, 'script.json');
    const repl = (command: unknown) => '```repl\n' + JSON.stringify(command) + '\n```';
    writeFileSync(
      script,
      JSON.stringify({ '0': [repl({ print: 'hi' }), repl({ final: 'first' })] }),
    );
    const { runId } = await call<{ runId: string }>('runs.start', {
      set: 'qasper',
      question: 'Q?',
      model: `scripted:${script}`,
    });
    const finishedOf = (id: string) =>
      new Promise<void>((resolve) => {
        const check = () =>
          events.some(
            (e) => e.kind === 'runs.event' && e.runId === id && e.event.kind === 'run.finished',
          );
        if (check()) resolve();
        const stop = engine.host.onEvent(() => {
          if (check()) {
            stop();
            resolve();
          }
        });
      });
    await finishedOf(runId);
    await expect(call('runs.fork', { runId, agentId: '0', turn: 1 })).rejects.toThrow(
      /ApiValidationError.*code.*give code or response/,
    );
    const fork = await call<{ runId: string }>('runs.fork', {
      runId,
      agentId: '0',
      turn: 1,
      code: '{"final": "forked"}',
    });
    await finishedOf(fork.runId);
    const { run } = await call<{ run: RunSummaryPayload }>('runs.events', { runId: fork.runId });
    expect(run).toMatchObject({ parentRunId: runId, answer: 'forked', status: 'done' });
    expect(await call<{ runs: RunSummaryPayload[] }>('runs.list', { parentRunId: runId })).toEqual({
      runs: [run],
    });
  }, 30_000);

  it('answers a file it cannot read with a named error', async () => {
    await expect(call('runs.import', { text: '{"a":1}\n', name: 'x.jsonl' })).rejects.toThrow(
      /UnknownRunLogFormatError: 'x.jsonl' is not a run log/,
    );
  });

  it('imports a path and follows a growing log: runs.event live, runs.follows, runs.unfollow', async () => {
    const lines = readFileSync(realLog, 'utf8').split('\n');
    const file = join(dir, 'live.jsonl');
    writeFileSync(file, `${lines.slice(0, 3).join('\n')}\n`);
    const imported = await call<{ logs: { runs: unknown[] }[] }>('runs.importPath', { path: file });
    expect(imported.logs[0]?.runs).toHaveLength(1);
    events.length = 0;
    const started = await call<{ followId: string; state: string }>('runs.follow', {
      path: file,
      idleSeconds: 30,
    });
    expect(started.state).toBe('following');
    await expect.poll(() => events.some((e) => e.kind === 'runs.event')).toBe(true);
    const runId = events.find((e) => e.kind === 'runs.event')?.runId;
    expect(events).toContainEqual({
      kind: 'runs.changed',
      at: 42,
      change: 'created',
      runIds: [runId],
    });
    appendFileSync(file, `${lines[3]}\n`);
    await expect
      .poll(
        () =>
          events.filter((e) => e.kind === 'runs.event' && e.event.kind === 'turn.started').length,
      )
      .toBe(2);
    const { follows } = await call<{ follows: { followId: string; runs: { status: string }[] }[] }>(
      'runs.follows',
      {},
    );
    expect(follows).toEqual([
      expect.objectContaining({
        followId: started.followId,
        runs: [expect.objectContaining({ status: 'running' })],
      }),
    ]);
    await expect(call('runs.delete', { runId })).rejects.toThrow(/RunStillRunningError/);
    const stopped = await call<{ ended: string; runs: { status: string }[] }>('runs.unfollow', {
      followId: started.followId,
    });
    expect(stopped).toMatchObject({ ended: 'stopped', runs: [{ status: 'interrupted' }] });
    expect(events.at(-1)).toMatchObject({ kind: 'runs.followChanged', follow: { state: 'ended' } });
    await expect(call('runs.unfollow', { followId: 'nope' })).rejects.toThrow(/UnknownFollowError/);
    // Cancel on a followed run (the run page's button) stops its follow.
    const second = join(dir, 'second.jsonl');
    writeFileSync(second, `${lines.slice(0, 3).join('\n')}\n`);
    const again = await call<{ followId: string }>('runs.follow', { path: second });
    const secondRun = async () =>
      (
        await call<{ follows: { followId: string; runs: { runId: string }[] }[] }>(
          'runs.follows',
          {},
        )
      ).follows.find((f) => f.followId === again.followId)?.runs[0]?.runId;
    await expect.poll(secondRun).toBeTypeOf('string');
    expect(await call('runs.cancel', { runId: await secondRun() })).toEqual({ canceled: true });
    const after = await call<{ follows: { followId: string; ended: string | null }[] }>(
      'runs.follows',
      {},
    );
    expect(after.follows.find((f) => f.followId === again.followId)?.ended).toBe('stopped');
    await expect(call('runs.follow', { path: join(dir, 'missing') })).rejects.toThrow(
      /RunLogPathError: '.*missing': there is no such file or folder/,
    );
  });
});
