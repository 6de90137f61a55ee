// Listing runs with filters, and a run's score: its own, else its newest eval result's.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '../api/index.ts';
import { RunIdTakenError, RunStore } from './runs.ts';
import { openWorkspace, type Workspace } from './workspace.ts';

let dir: string;
let workspace: Workspace;
let store: RunStore;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rlm-runs-filter-'));
  workspace = openWorkspace(dir);
  store = new RunStore(workspace.db);
});
afterEach(() => {
  workspace.close();
  rmSync(dir, { recursive: true, force: true });
});

const finished = (at: number, status: 'done' | 'failed'): RunEvent => ({
  kind: 'run.finished',
  at,
  status,
  answer: status === 'done' ? ['a 100% answer'] : null,
  agents: 1,
  turns: 2,
  usage: { inputTokens: 5, outputTokens: 6 },
  costUsd: null,
  durationMs: at,
  error: null,
});

function add(
  id: string,
  createdAt: number,
  end: number,
  extra: Partial<Parameters<RunStore['insertRun']>[0]> = {},
) {
  store.insertRun(
    {
      id,
      question: `question ${id}`,
      set: 'set-a',
      model: 'openai:gpt-4o',
      source: 'live',
      createdAt,
      ...extra,
    },
    [finished(end, id === 'c' ? 'failed' : 'done')],
  );
}

describe('RunStore.list', () => {
  it('filters by status, model, set, score, duration, date, text and source', () => {
    add('a', 1000, 3000, { score: 0.9 });
    add('b', 2000, 2500, { set: 'set-b', model: 'anthropic:claude' });
    add('c', 3000, 9000, { source: 'skyrl', score: 0.1 });
    const ids = (filter: Parameters<RunStore['list']>[0]) =>
      store.list(filter).map((run) => run.id);
    expect(ids({})).toEqual(['c', 'b', 'a']);
    expect(ids({ status: ['failed'] })).toEqual(['c']);
    expect(ids({ model: 'CLAUDE' })).toEqual(['b']);
    expect(ids({ set: 'set-b' })).toEqual(['b']);
    expect(ids({ minScore: 0.5 })).toEqual(['a']);
    expect(ids({ maxDurationMs: 1000 })).toEqual(['b']);
    expect(ids({ minDurationMs: 5000 })).toEqual(['c']);
    expect(ids({ from: 1500, to: 2500 })).toEqual(['b']);
    expect(ids({ text: '100%' })).toEqual(['b', 'a']);
    expect(ids({ text: 'question_' })).toEqual([]);
    expect(ids({ source: 'skyrl' })).toEqual(['c']);
    expect(ids({ limit: 1 })).toEqual(['c']);
    expect(() => {
      add('a', 1, 2);
    }).toThrow(RunIdTakenError);
  });

  it("takes an eval result's rubric (else span F1) as the score of a run that has none", () => {
    add('a', 1000, 3000);
    add('b', 2000, 3000, { score: 0.2 });
    workspace.db
      .prepare(
        `INSERT INTO evals (id, created_at, updated_at, status, dataset_path, dataset_name, format, options, model, total)
         VALUES ('e', 1, 1, 'done', 'd', 'd', 'ours', '{}', 'm', 2)`,
      )
      .run();
    const result = workspace.db.prepare(
      `INSERT INTO eval_results (eval_id, question_id, seq, run_id, status, question, set_name, paper_ids, spans, gold,
         span_f1, rubric, latency_ms, input_tokens, output_tokens, finished_at)
       VALUES ('e', ?, 0, ?, 'done', 'q', 's', '[]', '[]', '[]', ?, ?, 1, 1, 1, ?)`,
    );
    result.run('q1', 'a', 0.4, null, 10);
    result.run('q2', 'b', 0.9, 0.95, 10);
    expect(store.get('a').score).toBe(0.4);
    expect(store.get('b').score).toBe(0.2);
    expect(store.list({ minScore: 0.3 }).map((run) => run.id)).toEqual(['a']);
    store.setScore('a', 0.7);
    expect(store.get('a').score).toBe(0.7);
  });
});
