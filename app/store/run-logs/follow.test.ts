// Following logs another tool is still writing: an rlm JSONL grows line by line (a half-written
// line waits), a nano-rlm session folder grows a child, and each ends at its final answer, when
// the files stay quiet, or when stopped. The events sent live are the events stored.
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '../../api/index.ts';
import { foldRun } from '../../run-log/index.ts';
import { openWorkspace, RunStore, type Workspace } from '../index.ts';
import { RunLogPathError } from './errors.ts';
import { RunLogFollower } from './follow.ts';

/** The id of the i-th run of a report or follow ('' where there is none, which fails the test). */
const idAt = (runs: readonly { runId: string }[], i: number) => runs[i]?.runId ?? '';

let dir: string;
let workspace: Workspace;
let store: RunStore;
let clock: number;
let sent: { runId: string; event: RunEvent; seq: number }[];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rlm-follow-'));
  workspace = openWorkspace(join(dir, 'workspace'));
  store = new RunStore(workspace.db);
  clock = 1_000_000;
  sent = [];
});
afterEach(() => {
  workspace.close();
  rmSync(dir, { recursive: true, force: true });
});

const line = (value: unknown) => `${JSON.stringify(value)}\n`;
const follower = (path: string, idleMs = 10_000) =>
  new RunLogFollower(store, path, (runId, event, seq) => sent.push({ runId, event, seq }), {
    now: () => clock,
    idleMs,
    settleMs: 500,
  });
const iteration = (n: number, code: string, final: string | null) => ({
  type: 'iteration',
  iteration: n,
  timestamp: `2026-03-02T10:00:0${n}.000000`,
  prompt: [
    {
      role: 'user',
      content: 'Answer the following: How many?\n\nYour context is a str of 50 total characters.',
    },
  ],
  response: `\`\`\`repl\n${code}\n\`\`\``,
  code_blocks: [
    { code, result: { stdout: `${n}\n`, stderr: '', locals: {}, execution_time: 0.1 } },
  ],
  final_answer: final,
  iteration_time: 0.5,
});

describe('following an rlm JSONL', () => {
  it('grows the run as lines land, waits for a half-written line, ends at the final answer', () => {
    const file = join(dir, 'rlm.jsonl');
    writeFileSync(file, line({ type: 'metadata', root_model: 'gpt-5-mini', max_iterations: 6 }));
    const follow = follower(file);
    const changes: string[] = [];
    follow.onChange((state) => changes.push(`${state.state}:${state.runs.length}`));
    follow.poll();
    expect(follow.state().runs).toEqual([]);

    appendFileSync(file, line(iteration(1, 'print(1)', null)));
    clock += 250;
    follow.poll();
    const [run] = follow.state().runs;
    expect(run).toMatchObject({ format: 'rlm-log', question: 'How many?', status: 'running' });
    const runId = run?.runId ?? '';
    expect(store.get(runId).status).toBe('running');
    expect(foldRun(store.events(runId)).agents.get('0')?.turns).toHaveLength(1);

    // Half of the next line: not read until its newline lands.
    const next = line(iteration(2, 'print(2)', '2'));
    appendFileSync(file, next.slice(0, 40));
    clock += 250;
    follow.poll();
    expect(foldRun(store.events(runId)).agents.get('0')?.turns).toHaveLength(1);
    expect(follow.state().problems).toEqual([]);

    appendFileSync(file, next.slice(40));
    clock += 250;
    follow.poll();
    expect(follow.state().runs[0]?.status).toBe('done');
    expect(store.get(runId)).toMatchObject({ status: 'done', answer: '2', turns: 2 });
    expect(follow.state().state).toBe('following');
    clock += 600;
    follow.poll();
    expect(follow.state()).toMatchObject({ state: 'ended', ended: 'answered' });

    // What went out live is what was stored, in order, each event once.
    expect(sent.map((s) => s.event)).toEqual(store.events(runId));
    expect(sent.map((s) => s.seq)).toEqual(sent.map((_, i) => i));
    expect(changes.at(-1)).toBe('ended:1');
  });

  it('ends a run the tool stopped writing as interrupted once the file is quiet', () => {
    const file = join(dir, 'rlm.jsonl');
    writeFileSync(file, line(iteration(1, 'print(1)', null)));
    const follow = follower(file, 2_000);
    follow.poll();
    clock += 1_000;
    follow.poll();
    expect(follow.state().state).toBe('following');
    clock += 1_500;
    follow.poll();
    const state = follow.state();
    expect(state).toMatchObject({ state: 'ended', ended: 'idle' });
    const run = store.get(idAt(state.runs, 0));
    expect(run.status).toBe('interrupted');
    expect(run.error).toMatchObject({ name: 'RunLogStoppedChangingError' });
    expect(run.error?.message).toContain('stopped changing for 2 s');
  });

  it('reports a bad line once and keeps following; stop ends open runs interrupted', () => {
    const file = join(dir, 'rlm.jsonl');
    writeFileSync(file, `${line(iteration(1, 'a = 1', null))}{not json\n`);
    const follow = follower(file);
    follow.poll();
    appendFileSync(file, line(iteration(2, 'b = 2', null)));
    clock += 250;
    follow.poll();
    expect(follow.state().problems).toEqual([
      expect.objectContaining({ line: 2, file, name: 'RunLogLineError' }),
    ]);
    const runId = idAt(follow.state().runs, 0);
    expect(foldRun(store.events(runId)).agents.get('0')?.turns).toHaveLength(2);
    const stopped = follow.stop();
    expect(stopped.ended).toBe('stopped');
    expect(store.get(runId)).toMatchObject({
      status: 'interrupted',
      error: { name: 'RunLogFollowStoppedError' },
    });
    // Nothing more is read once stopped.
    appendFileSync(file, line(iteration(3, 'c = 3', 'done')));
    follow.poll();
    expect(store.get(runId).status).toBe('interrupted');
  });

  it('refuses a path that is not there, by name', () => {
    expect(() => follower(join(dir, 'missing.jsonl'))).toThrow(RunLogPathError);
  });
});

describe('following a nano-rlm sessions folder', () => {
  const t0 = 1_767_000_000;
  const at = (s: number) => ({ timestamp: t0 + s });

  it('shows a session as it appears, its child as the child folder grows, then the answer', () => {
    const sessions = join(dir, 'sessions');
    mkdirSync(sessions);
    const follow = follower(sessions);
    follow.poll();
    expect(follow.state().runs).toEqual([]);

    const root = join(sessions, '20260301-120000-ab12');
    mkdirSync(root);
    writeFileSync(
      join(root, 'meta.json'),
      JSON.stringify({ model: 'm', status: 'running', start_time: t0 }),
    );
    const messages = join(root, 'messages.jsonl');
    writeFileSync(messages, line({ type: 'user', content: 'Summarise both papers.', ...at(0) }));
    appendFileSync(
      messages,
      line({
        type: 'assistant',
        content: '',
        tool_calls: [{ name: 'python', args: { code: 'rlm("paper A")' } }],
        ...at(1),
      }),
    );
    clock += 250;
    follow.poll();
    const runId = idAt(follow.state().runs, 0);
    expect(follow.state().runs[0]).toMatchObject({
      format: 'nano-rlm',
      question: 'Summarise both papers.',
    });
    expect([...foldRun(store.events(runId)).agents.keys()]).toEqual(['0']);

    const child = join(root, 'sub-aa11');
    mkdirSync(child);
    writeFileSync(
      join(child, 'meta.json'),
      JSON.stringify({ depth: 1, status: 'running', start_time: t0 + 2 }),
    );
    writeFileSync(
      join(child, 'messages.jsonl'),
      line({ type: 'user', content: 'paper A', ...at(2) }),
    );
    appendFileSync(
      messages,
      line({ type: 'sub_spawn', child_dir: 'sub-aa11', prompt: 'paper A', ...at(2) }),
    );
    clock += 250;
    follow.poll();
    expect(foldRun(store.events(runId)).agents.get('0.0')).toMatchObject({
      parentId: '0',
      prompt: 'paper A',
    });

    appendFileSync(
      join(child, 'messages.jsonl'),
      line({ type: 'assistant', content: 'A is about attention.', ...at(3) }),
    );
    appendFileSync(
      join(child, 'messages.jsonl'),
      line({ type: 'done', answer: 'A is about attention.', ...at(3) }),
    );
    appendFileSync(
      messages,
      line({ type: 'tool_result', content: 'A is about attention.', ...at(4) }),
    );
    appendFileSync(messages, line({ type: 'assistant', content: 'Paper A: attention.', ...at(5) }));
    clock += 250;
    follow.poll();
    expect(follow.state().runs[0]?.status).toBe('running');
    appendFileSync(
      messages,
      line({
        type: 'done',
        answer: 'Paper A: attention.',
        usage: { prompt_tokens: 40, completion_tokens: 8 },
        ...at(5),
      }),
    );
    clock += 250;
    follow.poll();
    const run = store.get(runId);
    expect(run).toMatchObject({
      status: 'done',
      answer: 'Paper A: attention.',
      agents: 2,
      inputTokens: 40,
    });
    expect(foldRun(store.events(runId)).agents.get('0.0')?.answer).toBe('A is about attention.');
    expect(sent.filter((s) => s.runId === runId).map((s) => s.event)).toEqual(store.events(runId));
    clock += 600;
    follow.poll();
    expect(follow.state().ended).toBe('answered');
  });
});
