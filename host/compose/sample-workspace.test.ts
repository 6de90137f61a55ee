// First start: a fresh workspace gets the sample papers and the recorded demo run, once; a
// workspace that already holds anything is left alone.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ApiEvent } from '../../app/api/index.ts';
import { foldRun } from '../../app/run-log/index.ts';
import { importRunLog } from '../../app/store/run-logs/index.ts';
import { openWorkspace, type Workspace } from '../../app/store/index.ts';
import { composeEngine, type Engine } from './compose.ts';
import { defaultAssetsDir, installSampleWorkspace, sampleSetName } from './sample-workspace.ts';

let dir: string;
let workspace: Workspace;
let engine: Engine;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rlm-sample-'));
  workspace = openWorkspace(dir);
  engine = composeEngine({ workspace, shell: 'serve' });
});
afterEach(async () => {
  await engine.dispose();
  workspace.close();
  rmSync(dir, { recursive: true, force: true });
});

const install = (events: ApiEvent[] = []) =>
  installSampleWorkspace({
    workspace,
    papers: engine.papers,
    runStore: engine.runStore,
    emit: (event) => events.push(event),
    now: () => 7,
  });

describe('the sample workspace', () => {
  it('installs the CC-BY papers and a whole demo tree once, with spans verbatim in the papers', async () => {
    const events: ApiEvent[] = [];
    const [first, concurrent] = await Promise.all([install(events), install()]);
    expect(first).toMatchObject({ installed: true, papers: 4 });
    expect(concurrent).toBe(first);
    expect(engine.papers.sets().map((set) => set.name)).toEqual([sampleSetName]);
    const runs = engine.runStore.list();
    expect(runs).toEqual([
      expect.objectContaining({ source: 'demo', status: 'done', agents: 5, set: 'sample' }),
    ]);
    const view = foldRun(engine.runStore.events(runs[0]?.id ?? ''));
    expect([...view.agents.keys()].sort()).toEqual(['0', '0.0', '0.0.0', '0.1', '0.2']);
    const paper = engine.papers.paper(sampleSetName, '1911.02782').contextText;
    for (const span of runs[0]?.answer as string[]) expect(paper).toContain(span);
    expect(events.map((event) => event.kind)).toEqual(['papers.setsChanged', 'runs.changed']);
    // The demo's scripted model points at this checkout's script, wherever the app runs from.
    expect(runs[0]?.model).toBe(`scripted:${defaultAssetsDir()}demo/demo.script.json`);
    expect(await install()).toMatchObject({ installed: false });
    expect(engine.runStore.list()).toHaveLength(1);
  }, 60_000);

  it('forks the demo run on the real REPL: earlier turns rebuilt, the edited turn changes the answer', async () => {
    await install();
    const demo = engine.runStore.list()[0];
    const original = demo?.answer as string[];
    const fork = await engine.runs.fork({
      runId: demo?.id ?? '',
      agentId: '0',
      turn: 2,
      code: 'FINAL_VAR(evidence[-1:])',
    });
    const outcome = await fork.finished;
    expect(outcome.error).toBeNull();
    expect(outcome.answer).toEqual(original.slice(-1));
    expect(original.length).toBeGreaterThan(1);
    const view = foldRun(engine.runStore.events(fork.runId));
    expect([...view.agents.keys()].sort()).toEqual(['0', '0.0', '0.0.0', '0.1', '0.2']);
    expect(engine.runStore.get(fork.runId)).toMatchObject({
      parentRunId: demo?.id,
      status: 'done',
    });
  }, 120_000);

  it('offers nothing when the build has no bundled sample', async () => {
    expect(
      await installSampleWorkspace({
        workspace,
        papers: engine.papers,
        runStore: engine.runStore,
        assetsDir: join(dir, 'no-assets'),
      }),
    ).toMatchObject({ installed: false });
    expect(engine.papers.sets()).toEqual([]);
  });

  it('leaves a workspace that already has runs alone, for good', async () => {
    const exported = `{"format":"rlm-studio.run","version":1,"run":${JSON.stringify({
      id: 'r',
      createdAt: 1,
      finishedAt: 2,
      status: 'done',
      question: 'q',
      set: '',
      model: 'm',
      answer: null,
      agents: 0,
      turns: 0,
      inputTokens: 0,
      outputTokens: 0,
      costUsd: null,
      error: null,
      parentRunId: null,
      score: null,
      source: 'live',
    })}}\n`;
    importRunLog(engine.runStore, exported);
    expect(await install()).toMatchObject({ installed: false });
    engine.runStore.remove('r');
    expect(await install()).toMatchObject({ installed: false });
    expect(engine.papers.sets()).toEqual([]);
  });
});
