// `rlm-studio eval` end to end with a scripted model and judge over the shared QASPER subset: it is
// killed (SIGKILL) after some questions finished, started again with the same command, and must
// skip the finished questions, keep their results and finish the rest, losing none.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const launcher = new URL('../../bin/rlm-studio.js', import.meta.url).pathname;
const qasper = new URL(
  '../../../shared/data/qasper/qasper_test_v0.3_subset_papers_with_pdf.json',
  import.meta.url,
).pathname;

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rlm-eval-cli-'));
  writeFileSync(
    join(dir, 'model.json'),
    JSON.stringify({
      delayMs: 1200,
      responses: {
        '0': [
          "```repl\nhits = search(context, 'sentence')\nFINAL_VAR([s for v in hits.values() for s in v][:2])\n```",
        ],
      },
    }),
  );
  writeFileSync(
    join(dir, 'judge.json'),
    JSON.stringify({ '0:judge': ['{"precision": 6, "recall": 4, "reasoning": "Partly."}'] }),
  );
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const args = () => [
  launcher,
  '--workspace',
  join(dir, 'ws'),
  'eval',
  '--dataset',
  qasper,
  '--format',
  'qasper',
  '--model',
  `scripted:${join(dir, 'model.json')}`,
  '--judge',
  `scripted:${join(dir, 'judge.json')}`,
  '--limit',
  '6',
  '--concurrency',
  '2',
  '--json',
];

function finishedRows(): { question_id: string; run_id: string }[] {
  try {
    const db = new DatabaseSync(join(dir, 'ws', 'rlm-studio.sqlite'), { readOnly: true });
    try {
      return db
        .prepare('SELECT question_id, run_id FROM eval_results ORDER BY question_id')
        .all() as { question_id: string; run_id: string }[];
    } finally {
      db.close();
    }
  } catch {
    return []; // not created yet
  }
}

describe('rlm-studio eval', () => {
  it('is killed mid-way, restarts, skips finished questions and loses none', async () => {
    const child = spawn(process.execPath, args(), { stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise<void>((resolve) =>
      child.on('exit', () => {
        resolve();
      }),
    );
    const deadline = Date.now() + 90_000;
    while (finishedRows().length < 2) {
      if (Date.now() > deadline) throw new Error('no question finished in 90 s');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    child.kill('SIGKILL');
    await exited;
    const before = finishedRows();
    expect(before.length).toBeGreaterThanOrEqual(2);
    expect(before.length).toBeLessThan(6);

    const rerun = spawnSync(process.execPath, args(), { encoding: 'utf8', timeout: 120_000 });
    expect(rerun.status).toBe(0);
    const out = JSON.parse(rerun.stdout) as {
      status: string;
      already_done: number;
      n: number;
      done: number;
      mean_rubric: number;
      evidence_f1: number;
      latency_median_ms: number;
      questions: { id: string; run_id: string; rubric: number }[];
    };
    expect(out).toMatchObject({ status: 'done', n: 6, done: 6, already_done: before.length });
    expect(out.mean_rubric).toBeCloseTo(0.5, 12);
    expect(out.evidence_f1).toBeGreaterThanOrEqual(0);
    expect(out.latency_median_ms).toBeGreaterThan(1000);
    const ids = out.questions.map((q) => q.id);
    expect(new Set(ids).size).toBe(6);
    // The finished questions kept their results (same runs); the others ran once, now.
    const after = new Map(finishedRows().map((row) => [row.question_id, row.run_id]));
    for (const row of before) expect(after.get(row.question_id)).toBe(row.run_id);
    expect(after.size).toBe(6);

    const again = spawnSync(process.execPath, args(), { encoding: 'utf8', timeout: 60_000 });
    expect(JSON.parse(again.stdout)).toMatchObject({ already_done: 6, done: 6 });
  }, 240_000);
});
