// Forks: the earlier turns are replayed (their code re-run with recorded child answers, no model
// call), the edited turn runs, the model runs live after it, and the new run is linked to its
// parent. Against the JSON-command stand-in REPL and a scripted model.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { foldRun } from '../run-log/index.ts';
import { ScriptedProvider } from '../models/index.ts';
import type { CompletionRequest, Provider } from '../models/provider.ts';
import type { PaperLibrary } from '../papers/index.ts';
import { openWorkspace, RunStore, type Workspace } from '../store/index.ts';
import { fakeSandbox } from './fake-sandbox.test-support.ts';
import { ForkPointError, replaceCode } from './fork.ts';
import { RunService } from './service.ts';

const repl = (command: unknown) => '```repl\n' + JSON.stringify(command) + '\n```';
const script = {
  '0': [
    `Ask a child.\n${repl({ rlm: 'what is it?', keep: 'a' })}`,
    repl({ llm: 'check', keep: 'checked' }),
    repl({ finalVar: 'a' }),
  ],
  '0.0': [repl({ print: 'looking' }), repl({ final: 'child says A' })],
  '0:llm': ['fine'],
};

let dir: string;
let workspace: Workspace;
let store: RunStore;
let service: RunService;
let requests: CompletionRequest[];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rlm-fork-'));
  workspace = openWorkspace(dir);
  store = new RunStore(workspace.db);
  requests = [];
  const papers = {
    texts: () => [
      {
        id: 'p1',
        title: 'One',
        context: '### PAPER: One\n\ntext',
        contextOffset: 0,
        fullText: 'text',
      },
    ],
  } as unknown as PaperLibrary;
  service = new RunService({
    papers,
    store,
    providers: (spec): Provider => {
      const scripted = ScriptedProvider.fromObject(script, { spec });
      return {
        spec,
        complete: (request) => {
          requests.push(request);
          return scripted.complete(request);
        },
      };
    },
    sandbox: (callbacks) => Promise.resolve(fakeSandbox(callbacks)),
  });
});
afterEach(async () => {
  await service.dispose();
  workspace.close();
  rmSync(dir, { recursive: true, force: true });
});

async function original(): Promise<string> {
  const started = await service.start({
    set: 'demo',
    question: 'What is it?',
    model: 'scripted:demo',
  });
  expect((await started.finished).answer).toBe('child says A');
  requests.length = 0;
  return started.runId;
}

describe('runs.fork', () => {
  it('replays the turns before the fork, runs the edited code, and changes the final answer', async () => {
    const parent = await original();
    const seqs: number[] = [];
    service.onEvent((_runId, _event, seq) => seqs.push(seq));
    const fork = await service.fork({
      runId: parent,
      agentId: '0',
      turn: 2,
      code: '{"final": "edited answer"}',
    });
    const outcome = await fork.finished;
    expect(outcome).toMatchObject({ status: 'done', answer: 'edited answer' });
    // Nothing before the fork point asked the model again: the child and llm_query were recorded.
    expect(requests).toEqual([]);
    expect(store.get(fork.runId)).toMatchObject({
      parentRunId: parent,
      answer: 'edited answer',
      status: 'done',
    });
    const events = store.events(fork.runId);
    expect(events[0]).toMatchObject({
      kind: 'run.started',
      forkOf: { runId: parent, agentId: '0', turn: 2 },
    });
    expect(seqs).toEqual(events.map((_event, index) => index));
    const view = foldRun(events);
    expect([...view.agents.keys()]).toEqual(['0', '0.0']);
    expect(view.agents.get('0.0')).toMatchObject({
      state: 'done',
      answer: 'child says A',
      inputTokens: 0,
    });
    // The fork's totals and its tree agree: replayed work is not counted as spent again.
    expect(store.get(fork.runId)).toMatchObject({
      inputTokens: view.inputTokens,
      outputTokens: view.outputTokens,
    });
    expect(view.agents.get('0')?.turns[2]?.code[0]?.code).toBe('{"final": "edited answer"}\n');
    // The REPL state before the fork was rebuilt: turn 1's llm_query answer is in its output.
    expect(view.agents.get('0')?.turns[1]?.code[0]?.stdout).toBe('"fine"\n');
  });

  it('forks a child: ancestors re-run to the spawn, the child takes the edit, the root goes on live', async () => {
    const parent = await original();
    const fork = await service.fork({
      runId: parent,
      agentId: '0.0',
      turn: 1,
      response: repl({ final: 'child says B' }),
    });
    expect(await fork.finished).toMatchObject({ status: 'done', answer: 'child says B' });
    // The root's turn 0 (which spawned the child) is replayed; its later turns ask the model live.
    expect(requests.map((request) => `${request.agentId}#${request.turn}`)).toEqual([
      '0#1',
      '0:llm#0',
      '0#2',
    ]);
    expect(store.get(fork.runId).answer).toBe('child says B');
    const view = foldRun(store.events(fork.runId));
    expect(view.inputTokens).toBeGreaterThan(0);
    expect(store.get(fork.runId).inputTokens).toBe(view.inputTokens);
  });

  it('names a fork point the run never reached', async () => {
    const parent = await original();
    await expect(
      service.fork({ runId: parent, agentId: '0.3', turn: 0, code: 'x' }),
    ).rejects.toThrow(ForkPointError);
    await expect(service.fork({ runId: parent, agentId: '0', turn: 9, code: 'x' })).rejects.toThrow(
      /agent 0 has no recorded turn 10/,
    );
  });
});

describe('replaceCode', () => {
  it('replaces the block the policy runs, keeping the prose', () => {
    const response = 'Think.\n```repl\na = 1\n```\nthen\n```python\nb = 2\n```';
    expect(replaceCode(response, 'c = 3', 'last')).toBe(
      'Think.\n```repl\na = 1\n```\nthen\n```repl\nc = 3\n```',
    );
    expect(replaceCode(response, 'c = 3\n', 'first')).toBe(
      'Think.\n```repl\nc = 3\n```\nthen\n```python\nb = 2\n```',
    );
    expect(replaceCode(response, 'c = 3', 'all')).toBe('Think.\n```repl\nc = 3\n```\nthen\n');
    expect(replaceCode('No code.', 'c = 3', 'last')).toBe('No code.\n```repl\nc = 3\n```');
  });
});
