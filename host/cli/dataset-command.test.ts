// `rlm-studio dataset` end to end: papers ingested into a set, a scripted teacher writes questions
// over one group (one kept, one whose span is in no paper, one duplicate), then list, show with the
// report, export as SkyRL rows, rename and delete, and the named errors for bad input.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const launcher = new URL('../../bin/rlm-studio.js', import.meta.url).pathname;

let dir: string;
const cli = (...args: string[]) =>
  spawnSync(process.execPath, [launcher, '--workspace', join(dir, 'ws'), ...args], {
    encoding: 'utf8',
  });

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rlm-dataset-cli-'));
  const papers = {
    a1: {
      title: 'Encoders',
      abstract: 'About encoders.',
      full_text: [
        { section_name: 'Method', paragraphs: ['We use a BiLSTM encoder with two layers.'] },
      ],
      qas: [],
    },
    a2: {
      title: 'Decoders',
      abstract: 'About decoders.',
      full_text: [
        { section_name: 'Method', paragraphs: ['Our decoder attends to every encoder state.'] },
      ],
      qas: [],
    },
  };
  writeFileSync(join(dir, 'papers.json'), JSON.stringify(papers));
  const reply = {
    questions: [
      {
        question: 'How many layers does the encoder have?',
        evidence: [{ paperId: 'a1', text: 'We use a BiLSTM encoder with two layers.' }],
      },
      {
        question: 'What does the decoder attend to?',
        evidence: [{ paperId: 'a2', text: 'The decoder reads nothing.' }],
      },
      {
        question: 'How many layers does the encoder have',
        evidence: [{ paperId: 'a1', text: 'two layers' }],
      },
    ],
  };
  writeFileSync(
    join(dir, 'teacher.json'),
    JSON.stringify({ '0:dataset': [JSON.stringify(reply)] }),
  );
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('rlm-studio dataset', () => {
  it('generates, lists, reports, exports, renames and deletes', () => {
    expect(cli('ingest', join(dir, 'papers.json'), '--set', 'tiny').status).toBe(0);
    const generated = cli(
      'dataset',
      'generate',
      '--set',
      'tiny',
      '--teacher',
      `scripted:${join(dir, 'teacher.json')}`,
      '--name',
      'mine',
      '--validation',
      '0',
      '--json',
    );
    expect(generated.stderr).toBe('');
    const result = JSON.parse(generated.stdout) as {
      dataset: { questions: number; train: number; groupsDone: number };
      outcomes: { dropped: { reason: string }[] }[];
    };
    expect(result.dataset).toMatchObject({ questions: 1, train: 1, groupsDone: 1 });
    expect(result.outcomes[0]?.dropped.map((d) => d.reason)).toEqual([
      'a span is not in paper \'a2\' verbatim: "The decoder reads nothing."',
      'none of its evidence could be located in the papers',
      'a near-duplicate of "How many layers does the encoder have?"',
    ]);
    expect(cli('dataset', 'list').stdout).toMatch(/^mine {2}1 questions \(train 1, validation 0/);
    expect(cli('dataset', 'show', 'mine', '--report').stdout).toContain(
      'dropped "What does the decoder attend to?": none of its evidence could be located',
    );
    const out = join(dir, 'mine.jsonl');
    expect(cli('dataset', 'export', 'mine', '--out', out).stdout).toBe(`wrote 1 rows to ${out}\n`);
    const row = JSON.parse(readFileSync(out, 'utf8')) as {
      reward_spec: { evidence: { paperId: string; selections: { text: string }[] }[] };
    };
    expect(row.reward_spec.evidence).toEqual([
      { paperId: 'a1', selections: [{ text: 'We use a BiLSTM encoder with two layers.' }] },
    ]);
    expect(cli('dataset', 'rename', 'mine', 'ours').status).toBe(0);
    expect(cli('dataset', 'delete', 'ours').stdout).toBe("deleted 'ours'\n");
  }, 60_000);

  it('names what is wrong: no such dataset, a set without papers', () => {
    const missing = cli('dataset', 'show', 'nothing');
    expect(missing.status).not.toBe(0);
    expect(missing.stderr).toMatch(/DatasetNotFoundError: There is no dataset 'nothing'/);
    const teacher = `scripted:${join(dir, 'teacher.json')}`;
    const empty = cli('dataset', 'generate', '--set', 'none', '--teacher', teacher);
    expect(empty.status).not.toBe(0);
    expect(empty.stderr).toMatch(/PaperSetNotFoundError: There is no paper set 'none'/);
  }, 60_000);
});
