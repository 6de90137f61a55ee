// `rlm-studio score` run as a user would: QASPER from the shared file, our format over a workspace
// set, bad prediction rows reported by line, named errors for bad arguments.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const launcher = new URL('../../bin/rlm-studio.js', import.meta.url).pathname;
const qasper = new URL(
  '../../../shared/data/qasper/qasper_test_v0.3_subset_papers_with_pdf.json',
  import.meta.url,
).pathname;

type QasperFile = Record<
  string,
  {
    qas: { question: string; question_id: string; answers: { answer: { evidence: string[] } }[] }[];
  }
>;

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rlm-score-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

function cli(...args: string[]) {
  return spawnSync(process.execPath, [launcher, '--workspace', join(dir, 'ws'), ...args], {
    encoding: 'utf8',
  });
}

function write(name: string, lines: unknown[]): string {
  const path = join(dir, name);
  writeFileSync(
    path,
    lines.map((line) => (typeof line === 'string' ? line : JSON.stringify(line))).join('\n'),
  );
  return path;
}

describe('rlm-studio score', () => {
  const data = JSON.parse(readFileSync(qasper, 'utf8')) as QasperFile;
  const questions = Object.entries(data).flatMap(([paperId, paper]) =>
    paper.qas.map((qa) => ({ paperId, qa })),
  );

  it('scores QASPER predictions with span F1 and Evidence-F1, reporting bad rows by line', () => {
    const rows = questions.map(({ paperId, qa }, index) => ({
      id: qa.question_id,
      spans:
        index % 2 === 0
          ? (qa.answers.find((a) => a.answer.evidence.length > 0)?.answer.evidence ?? []).map(
              (text) => ({ paperId, text }),
            )
          : [{ paperId, text: 'words that are nowhere in the paper at all, not even close' }],
    }));
    const pred = write('pred.jsonl', [...rows, '{"id": 3}', 'not json']);
    const result = cli(
      'score',
      '--dataset',
      qasper,
      '--format',
      'qasper',
      '--pred',
      pred,
      '--json',
      '--per-question',
    );
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    const out = JSON.parse(result.stdout) as Record<string, unknown> & {
      questions: { id: string; unlocated: number }[];
      issues: { predictions: { line: number; reason: string }[] };
    };
    expect(out.n).toBe(questions.length);
    expect(out.evidence_f1).toBeGreaterThan(0.2);
    expect(out.evidence_f1).toBeLessThan(0.8);
    expect(out.span_f1).toBeGreaterThan(0.2);
    expect(out.span_f1).toBeLessThan(0.8);
    expect(out.unlocated_predicted).toBe(Math.floor(questions.length / 2));
    expect(out.issues.predictions.map((issue) => issue.line)).toEqual([
      rows.length + 1,
      rows.length + 2,
    ]);
    expect(out.questions).toHaveLength(questions.length);

    const prose = cli('score', '--dataset', qasper, '--format', 'qasper', '--pred', pred);
    expect(prose.stdout).toMatch(/QASPER Evidence-F1 \(official definition\): 0\.\d{4}/);
    expect(prose.stderr).toMatch(/predictions line \d+: field 'id'/);
  });

  it('scores our format against a workspace paper set', () => {
    expect(cli('ingest', qasper, '--set', 'sub', '--json').status).toBe(0);
    const [first] = questions;
    if (!first) throw new Error('no question');
    const evidence =
      first.qa.answers.find((a) => a.answer.evidence.length > 0)?.answer.evidence ?? [];
    const dataset = write('ours.jsonl', [
      {
        id: 'q1',
        question: first.qa.question,
        set: 'sub',
        paperIds: [first.paperId],
        gold: evidence.map((text) => ({ paperId: first.paperId, text })),
      },
      { id: 'q2', question: 'broken' },
    ]);
    const pred = write('ours-pred.jsonl', [
      { id: 'q1', spans: evidence.map((text) => ({ text: text.toUpperCase() })) },
    ]);
    const result = cli('score', '--dataset', dataset, '--format', 'ours', '--pred', pred, '--json');
    expect(result.status).toBe(0);
    const out = JSON.parse(result.stdout) as Record<string, unknown> & {
      issues: { dataset: { line: number }[] };
      located_by: Record<string, number>;
    };
    expect(out).toMatchObject({ n: 1, span_f1: 1, span_pooled_f1: 1 });
    expect(out.evidence_f1).toBeUndefined();
    expect(out.located_by.normalised).toBe(evidence.length);
    expect(out.issues.dataset.map((issue) => issue.line)).toEqual([2]);

    const judge = join(dir, 'judge.json');
    writeFileSync(
      judge,
      JSON.stringify({ '0:judge': ['{"precision": 9, "recall": 7, "reasoning": "Close."}'] }),
    );
    const judged = cli(
      'score',
      '--dataset',
      dataset,
      '--format',
      'ours',
      '--pred',
      pred,
      '--judge',
      `scripted:${judge}`,
      '--json',
      '--per-question',
    );
    const withRubric = JSON.parse(judged.stdout) as {
      mean_rubric: number;
      questions: { id: string; rubric: number }[];
    };
    expect(withRubric.mean_rubric).toBeCloseTo(0.8, 12);
    expect(withRubric.questions).toMatchObject([{ id: 'q1', rubric: 0.8 }]);
  });

  it('converts QASPER to SkyRL rows that score the same with gold as the prediction', () => {
    const rows = join(dir, 'skyrl.jsonl');
    const converted = cli(
      'convert',
      '--dataset',
      qasper,
      '--format',
      'qasper',
      '--to',
      'skyrl',
      '--out',
      rows,
    );
    expect(converted.stdout).toMatch(/^wrote \d+ skyrl rows/);
    const lines = readFileSync(rows, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(questions.length);
    const first = JSON.parse(lines[0] ?? '{}') as {
      extra_info: { id: string; context_text: string };
    };
    expect(first.extra_info.context_text).toMatch(/^\{"\d{4}\.\d{5}":"### PAPER: /);
    // Each row's own evidence as the prediction: every span locates in the row's papers.
    const gold = lines.map((line) => {
      const row = JSON.parse(line) as {
        extra_info: { id: string };
        reward_spec: { evidence: { paperId: string; selections: { text: string }[] }[] };
      };
      return {
        id: row.extra_info.id,
        spans: row.reward_spec.evidence.flatMap((e) =>
          e.selections.map((selection) => ({ paperId: e.paperId, text: selection.text })),
        ),
      };
    });
    const pred = write('skyrl-pred.jsonl', gold);
    const result = cli('score', '--dataset', rows, '--format', 'skyrl', '--pred', pred, '--json');
    const out = JSON.parse(result.stdout) as {
      n: number;
      span_pooled_f1: number;
      unlocated_gold: number;
    };
    expect(out.n).toBe(questions.length);
    expect(out.unlocated_gold).toBe(0);
    expect(out.span_pooled_f1).toBe(1);
  });

  it('names bad arguments', () => {
    const format = cli('score', '--dataset', qasper, '--format', 'csv', '--pred', qasper);
    expect(format.status).toBe(1);
    expect(format.stderr).toMatch(/UnknownDatasetFormatError: Unknown dataset format 'csv'/);
    const missing = cli(
      'score',
      '--dataset',
      qasper,
      '--format',
      'qasper',
      '--pred',
      join(dir, 'nope'),
    );
    expect(missing.stderr).toMatch(/PredictionFileError: .*no such file/);
  });
});
