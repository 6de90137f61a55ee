// A whole run on the real stack: the shared S2ORC paper ingested, the Pyodide REPL, a scripted
// model that uses every built-in and two levels of children, the run log in SQLite.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunEvent } from '../api/index.ts';
import { createProvider } from '../models/index.ts';
import { PaperLibrary } from '../papers/index.ts';
import { ReplSandbox } from '../repl/index.ts';
import { openWorkspace, RunStore, type Workspace } from '../store/index.ts';
import { RunService } from './service.ts';
import { foldRun } from '../run-log/index.ts';

const shared = new URL('../../../shared/data/papers/', import.meta.url).pathname;
const script = new URL('./fixtures/every-builtin.script.json', import.meta.url).pathname;

let dir: string;
let workspace: Workspace;
let engine: { papers: PaperLibrary; runs: RunService; runStore: RunStore };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rlm-scripted-'));
  workspace = openWorkspace(dir);
  // The engine's parts as host/compose/compose.ts wires them (app/ may not import host/).
  const papers = new PaperLibrary(workspace.db);
  const runStore = new RunStore(workspace.db);
  const runs = new RunService({
    papers,
    store: runStore,
    providers: (spec) => createProvider(spec),
    sandbox: (callbacks) => ReplSandbox.start({ callbacks }),
  });
  engine = { papers, runs, runStore };
  const results = await engine.papers.importPaths('s2orc', [
    join(shared, '2020.acl-main.447_arXiv-1911.02782_S2ORC.pdf'),
    join(shared, 'papermage_2023.emnlp-demo.45.pdf'),
  ]);
  expect(results.every((result) => result.outcome === 'added')).toBe(true);
}, 60_000);
afterAll(async () => {
  await engine.runs.dispose();
  await engine.papers.dispose();
  workspace.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a scripted run over the shared papers', () => {
  it('uses every built-in, two levels of children, and answers with verbatim spans', async () => {
    const events: RunEvent[] = [];
    engine.runs.onEvent((_runId, event) => events.push(event));
    const started = await engine.runs.start({
      set: 's2orc',
      question: 'How does S2ORC process papers?',
      model: `scripted:${script}`,
      budgets: { maxDepth: 2 },
    });
    const outcome = await started.finished;
    expect(outcome.error).toBeNull();
    expect(outcome.status).toBe('done');
    const view = foldRun(events);
    if (process.env.DEBUG_RUN)
      for (const e of events)
        if (e.kind === 'repl.output' || e.kind === 'final.answer')
          console.log(JSON.stringify(e).slice(0, 600));
    expect([...view.agents.keys()].sort()).toEqual(['0', '0.0', '0.0.0', '0.1', '0.2']);
    expect(
      [...view.agents.values()].map((agent) => [
        agent.id,
        agent.state,
        agent.error?.message ?? null,
      ]),
    ).toEqual([...view.agents.keys()].map((id) => [id, 'done', null]));
    const outputs = events.filter((event) => event.kind === 'repl.output');
    expect(outputs.filter((event) => event.error !== null)).toEqual([]);
    const first = outputs[0];
    expect(first?.stdout).toContain('1911.02782');
    expect(first?.stdout).toMatch(/fuzzy hits: [1-9]/);
    const answer = outcome.answer as string[];
    expect(Array.isArray(answer)).toBe(true);
    expect(answer.length).toBeGreaterThanOrEqual(3);
    const paper = engine.papers.paper('s2orc', '1911.02782').contextText;
    for (const span of answer) expect(paper.includes(span)).toBe(true);
    const stored = engine.runStore.get(started.runId);
    expect(stored).toMatchObject({ status: 'done', agents: 5 });
    expect(engine.runStore.events(started.runId)).toHaveLength(events.length);
  }, 120_000);
});
