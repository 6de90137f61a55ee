// Run-log import: the real alexzhang13/rlm log, nested children from rlm_calls[].metadata, SkyRL
// dumps, bad lines reported by number while the rest imports, and export -> import round trips.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { foldRun } from '../../run-log/index.ts';
import { openWorkspace, RunStore, type Workspace } from '../index.ts';
import { exportRuns } from './export.ts';
import { importRunLog, parseRunLog } from './import.ts';
import { UnknownRunLogFormatError } from './errors.ts';

const realLog = new URL(
  '../../../../shared/data/trajectories/alexzhang13-rlm-gpt4o-example.jsonl',
  import.meta.url,
).pathname;

let dir: string;
let workspace: Workspace;
let store: RunStore;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rlm-run-logs-'));
  workspace = openWorkspace(join(dir, 'a'));
  store = new RunStore(workspace.db);
});
afterEach(() => {
  workspace.close();
  rmSync(dir, { recursive: true, force: true });
});

const lines = (...values: unknown[]) => values.map((value) => JSON.stringify(value)).join('\n');
const iteration = (response: string, blocks: unknown[], final: string | null, ts: string) => ({
  type: 'iteration',
  timestamp: ts,
  prompt: [{ role: 'user', content: 'go' }],
  response,
  code_blocks: blocks,
  final_answer: final,
  iteration_time: 1.5,
});
const block = (code: string, stdout: string, calls: unknown[] = [], stderr = '') => ({
  code,
  result: { stdout, stderr, locals: { x: 1, s: 'a' }, execution_time: 0.25, rlm_calls: calls },
});
const usage = (input: number, output: number) => ({
  model_usage_summaries: {
    'gpt-4o-mini': { total_calls: 1, total_input_tokens: input, total_output_tokens: output },
  },
});

describe('alexzhang13/rlm logs', () => {
  it('imports the real gpt-4o log with all its runs, iterations and code blocks', () => {
    const text = readFileSync(realLog, 'utf8');
    const records = text
      .trim()
      .split('\n')
      .map(
        (line) =>
          JSON.parse(line) as { type: string; code_blocks?: unknown[]; final_answer?: unknown },
      );
    const iterations = records.filter((record) => record.type === 'iteration');
    const report = importRunLog(store, text, { source: 'the real log' });
    expect(report.format).toBe('rlm-log');
    expect(report.problems).toEqual([]);
    expect(report.runs).toHaveLength(
      records.filter((record) => record.type === 'run_context').length,
    );
    expect(report.runs.reduce((sum, run) => sum + run.turns, 0)).toBe(iterations.length);
    const stored = store.list({ source: 'rlm-log' });
    expect(stored).toHaveLength(6);
    let blocks = 0;
    for (const run of report.runs) {
      const view = foldRun(store.events(run.runId));
      for (const agent of view.agents.values())
        for (const turn of agent.turns) blocks += turn.code.length;
      expect(store.get(run.runId)).toMatchObject({ status: 'done', model: 'gpt-4o', agents: 1 });
    }
    expect(blocks).toBe(iterations.reduce((sum, it) => sum + (it.code_blocks?.length ?? 0), 0));
    const finals = iterations.filter((it) => it.final_answer !== null).map((it) => it.final_answer);
    expect(report.runs.map((run) => store.get(run.runId).answer)).toEqual(finals);
    const first = store.events(report.runs[0]?.runId ?? '');
    const output = first.find((event) => event.kind === 'repl.output');
    expect(output).toMatchObject({ stdout: 'Generate a random number between 1 and 100.\n' });
    const times = first.map((event) => event.at);
    expect(times).toEqual([...times].sort((a, b) => a - b));
  });

  it('turns sub-calls with a trajectory in metadata into child agents, at any depth', () => {
    const grandchild = {
      root_model: 'gpt-4o-mini',
      prompt: 'deepest question',
      response: 'deep answer',
      usage_summary: usage(30, 3),
      execution_time: 0.5,
      metadata: {
        run_metadata: {},
        iterations: [iteration('FINAL(deep answer)', [], 'deep answer', '2026-01-01T00:00:03')],
      },
    };
    const plainCall = {
      root_model: 'gpt-4o-mini',
      prompt: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'plain?' },
      ],
      response: 'plain!',
      usage_summary: usage(7, 2),
      execution_time: 0.1,
    };
    const child0 = {
      root_model: 'gpt-4o',
      prompt: 'first sub-question',
      response: 'child answer',
      usage_summary: usage(100, 10),
      execution_time: 2,
      metadata: {
        iterations: [
          iteration(
            '```repl\ny = rlm_query("deepest question")\n```',
            [block('y = rlm_query("deepest question")', '', [grandchild, plainCall])],
            null,
            '2026-01-01T00:00:04',
          ),
          iteration('FINAL_VAR(y)', [], 'child answer', '2026-01-01T00:00:05'),
        ],
      },
    };
    const child1 = {
      ...child0,
      prompt: 'second sub-question',
      response: 'second',
      metadata: { iterations: [iteration('FINAL(second)', [], 'second', '2026-01-01T00:00:06')] },
    };
    const failing = {
      ...child0,
      prompt: 'third',
      response: '',
      error: 'boom',
      error_type: 'TimeoutError',
      metadata: { iterations: [] },
    };
    const text = lines(
      { type: 'metadata', root_model: 'gpt-4o', max_depth: 3, max_iterations: 5 },
      {
        type: 'run_context',
        timestamp: '2026-01-01T00:00:00',
        prompt: 'the context',
        root_prompt: 'the question',
      },
      iteration(
        '```repl\na = rlm_query_batched([...])\n```',
        [block('a = rlm_query_batched(...)', 'done\n', [child0, child1, failing])],
        null,
        '2026-01-01T00:00:07',
      ),
      iteration('FINAL(ok)', [], 'ok', '2026-01-01T00:00:08'),
    );
    const report = importRunLog(store, text);
    expect(report.runs).toEqual([
      expect.objectContaining({ agents: 5, status: 'done', question: 'the question' }),
    ]);
    const view = foldRun(store.events(report.runs[0]?.runId ?? ''));
    expect([...view.agents.keys()]).toEqual(['0', '0.0', '0.0.0', '0.1', '0.2']);
    expect(view.agents.get('0')?.children).toEqual(['0.0', '0.1', '0.2']);
    expect(view.agents.get('0.0.0')).toMatchObject({
      parentId: '0.0',
      depth: 2,
      prompt: 'deepest question',
      state: 'done',
      answer: 'deep answer',
    });
    expect(view.agents.get('0.0')).toMatchObject({
      state: 'done',
      answer: 'child answer',
      inputTokens: 100 + 7,
      outputTokens: 10 + 2,
    });
    expect(view.agents.get('0.2')).toMatchObject({
      state: 'failed',
      error: { name: 'TimeoutError', message: 'boom' },
    });
    expect(view.agents.get('0')?.turns[0]?.children.map((child) => child.childId)).toEqual([
      '0.0',
      '0.1',
      '0.2',
    ]);
    expect(view.agents.get('0.0')?.turns[0]?.children).toEqual([
      { childId: '0.0.0', call: 'rlm', prompt: 'deepest question' },
      { childId: null, call: 'llm', prompt: 'plain?' },
    ]);
    expect(view.agents.get('0')?.turns[0]?.code[0]?.variables).toEqual([
      { name: 'x', type: 'int', repr: '1' },
      { name: 's', type: 'str', repr: "'a'" },
    ]);
  });

  it('reports a bad line by its number and imports the rest', () => {
    const text = [
      JSON.stringify({ type: 'metadata', root_model: 'gpt-4o', max_iterations: 5 }),
      '{"type": "run_context", "prompt": "q1"',
      JSON.stringify({ type: 'run_context', prompt: 'q2' }),
      JSON.stringify({ type: 'iteration', response: 42 }),
      JSON.stringify(iteration('FINAL(yes)', [], 'yes', '2026-01-01T00:00:01')),
    ].join('\n');
    const report = importRunLog(store, text, { now: 5_000 });
    expect(report.problems.map((problem) => [problem.line, problem.name])).toEqual([
      [2, 'RunLogLineError'],
      [4, 'RunLogLineError'],
    ]);
    expect(report.problems[0]?.message).toMatch(/^line 2: not JSON/);
    expect(report.runs).toEqual([
      expect.objectContaining({ question: 'q2', turns: 1, status: 'done' }),
    ]);
    // The run_context has no timestamp: the run is dated by its first iteration's start.
    expect(store.get(report.runs[0]?.runId ?? '').createdAt).toBe(
      Date.parse('2026-01-01T00:00:01Z') - 1500,
    );
    const undated = importRunLog(store, lines({ type: 'run_context', prompt: 'q3' }), {
      now: 5_000,
    });
    expect(store.get(undated.runs[0]?.runId ?? '').createdAt).toBe(5_000);
  });

  it('names a file it cannot read', () => {
    expect(() => parseRunLog('{"hello": 1}\n', { source: "'x.jsonl'" })).toThrow(
      UnknownRunLogFormatError,
    );
  });
});

describe('SkyRL eval dumps', () => {
  const row = (
    meta: Record<string, unknown> | null,
    response: string,
    extra: Record<string, unknown> = {},
  ) => ({
    input_prompt: `<|im_start|>system\nsys<|im_end|>\n<|im_start|>user\n${meta?.depth === 1 ? 'child task' : 'Which spans?'}<|im_end|>\n<|im_start|>assistant\n`,
    output_response: response,
    score: 0.75,
    stop_reason: 'stop',
    env_class: 'rlm',
    env_extras: meta ? { rlm_metadata: meta } : {},
    data_source: 'multi_paper',
    ...extra,
  });
  it('groups steps by trajectory: root turns, children 0.k, the final answer and the score', () => {
    const text = lines(
      row(
        { trajectory_id: 't1', depth: 1, child_index: 0, step_index: 0 },
        '```repl\nprint(1)\n```',
      ),
      row({ trajectory_id: 't1', depth: 1, child_index: 0, step_index: 1 }, 'FINAL(["c0"])'),
      row({ trajectory_id: 't1', depth: 1, child_index: 1, step_index: 0 }, 'FINAL(["c1"])'),
      row(
        { trajectory_id: 't1', depth: 0, child_index: null, step_index: 0 },
        '```repl\nr = rlm_query_batched(["a", "b"])\n```',
      ),
      row(
        { trajectory_id: 't1', depth: 0, child_index: null, step_index: 1, final_answer: ['span'] },
        '```repl\nFINAL_VAR(r)\n```',
      ),
      row(null, 'a single answer', { score: [0, 0, 0.05] }),
      { 'eval/multi_paper/avg_score': 0.5 },
    );
    const report = importRunLog(store, text, { now: 1_000 });
    expect(report.format).toBe('skyrl');
    expect(report.problems).toEqual([]);
    expect(report.runs.map((run) => [run.agents, run.turns])).toEqual([
      [3, 5],
      [1, 1],
    ]);
    const first = store.get(report.runs[0]?.runId ?? '');
    expect(first).toMatchObject({
      score: 0.75,
      answer: ['span'],
      question: 'Which spans?',
      set: 'multi_paper',
      source: 'skyrl',
    });
    const view = foldRun(store.events(first.id));
    expect(view.agents.get('0')?.turns[0]?.children.map((child) => child.childId)).toEqual([
      '0.0',
      '0.1',
    ]);
    expect(view.agents.get('0.0')).toMatchObject({ prompt: 'child task', answer: '["c0"]' });
    expect(view.agents.get('0')?.turns[0]?.code[0]?.code).toBe(
      'r = rlm_query_batched(["a", "b"])\n',
    );
    expect(store.list({ maxScore: 0.1 }).map((run) => run.id)).toEqual([report.runs[1]?.runId]);
  });
});

describe('our own export', () => {
  it('round-trips export -> import into another workspace, and renames a run whose id is taken', () => {
    importRunLog(store, readFileSync(realLog, 'utf8'));
    const ids = store.list().map((run) => run.id);
    const exported = exportRuns(store, ids);
    const other = openWorkspace(join(dir, 'b'));
    try {
      const otherStore = new RunStore(other.db);
      const report = importRunLog(otherStore, exported);
      expect(report.format).toBe('ours');
      expect(report.runs.map((run) => run.runId)).toEqual(ids);
      for (const id of ids) {
        expect(otherStore.events(id)).toEqual(store.events(id));
        expect({ ...otherStore.get(id), source: 'x' }).toEqual({ ...store.get(id), source: 'x' });
      }
      expect(exportRuns(otherStore, ids)).toBe(
        exported.replaceAll('"source":"rlm-log"', '"source":"ours"'),
      );
    } finally {
      other.close();
    }
    const again = importRunLog(store, exported);
    expect(
      again.runs.every((run) => run.renamedFrom !== null && run.runId !== run.renamedFrom),
    ).toBe(true);
    expect(store.list()).toHaveLength(12);
  });

  it('skips an event that does not match the schema, with its line number', () => {
    importRunLog(store, readFileSync(realLog, 'utf8'));
    const id = store.list()[0]?.id ?? '';
    const exported = exportRuns(store, [id]).trim().split('\n');
    exported.splice(2, 0, JSON.stringify({ kind: 'turn.started', at: 'soon' }));
    const other = openWorkspace(join(dir, 'c'));
    try {
      const report = importRunLog(new RunStore(other.db), exported.join('\n'));
      expect(report.problems).toEqual([
        expect.objectContaining({ line: 3, name: 'RunLogLineError' }),
      ]);
      expect(new RunStore(other.db).events(id)).toEqual(store.events(id));
    } finally {
      other.close();
    }
  });
});
