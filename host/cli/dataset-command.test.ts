// `rlm-studio dataset` end to end: papers ingested into a set, a scripted teacher writes questions
// over one group (one kept, one whose span is in no paper, one duplicate), then list, show with the
// report, export as SkyRL rows, teacher traces and an SFT set through the write-up's filter (a
// clean run accepted, one with a REPL error rejected with its reason), rename and delete, and the
// named errors for bad input.
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
  it('generates, lists, reports, exports, makes teacher traces, an SFT set and a train job on them, renames and deletes', () => {
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
    // Teacher traces over the train split, then the SFT filter: a clean run is accepted, a run
    // with a REPL error is rejected with its reason.
    const answer = "```repl\nFINAL_VAR(['We use a BiLSTM encoder with two layers.'])\n```";
    writeFileSync(join(dir, 'clean.json'), JSON.stringify({ '0': [answer] }));
    writeFileSync(
      join(dir, 'messy.json'),
      JSON.stringify({ '0': ['```repl\nprint(nope)\n```', answer] }),
    );
    const traces = (model: string) => {
      const run = cli(
        'dataset',
        'traces',
        'mine',
        '--teacher',
        `scripted:${join(dir, model)}`,
        '--json',
      );
      expect(run.stderr).toBe('');
      return JSON.parse(run.stdout) as {
        evalId: string;
        status: string;
        report: { meanSpanF1: number };
      };
    };
    const clean = traces('clean.json');
    expect(clean.status).toBe('done');
    expect(clean.report.meanSpanF1).toBe(1);
    const set = JSON.parse(
      cli('dataset', 'sft-set', 'mine', '--eval', clean.evalId, '--name', 'sft', '--json').stdout,
    ) as { runs: { accepted: boolean; reason: string | null }[] };
    expect(set.runs).toMatchObject([{ accepted: true, reason: null }]);
    const messy = traces('messy.json');
    const rejected = cli('dataset', 'sft-set', 'mine', '--eval', messy.evalId, '--name', 'sft2');
    expect(rejected.stdout).toMatch(/0 of 1 runs accepted/);
    expect(rejected.stdout).toMatch(
      /rejected \S+ \(g-\w+-q1\): REPL error in agent 0 turn 0: NameError/,
    );
    expect(
      cli('dataset', 'sft-set', 'mine', '--eval', clean.evalId, '--name', 'sft').stderr,
    ).toMatch(/SftSetNameTakenError/);
    // The Train view's job from the CLI: SFT on that set, then a GRPO step, in a job folder the
    // view lists (stories260K cannot follow the scaffold: reward 0, but both phases run).
    const stories = new URL(
      '../../../shared/data/models/stories260K/stories260K.bin',
      import.meta.url,
    ).pathname;
    const trained = cli(
      'train',
      '--dataset',
      'mine',
      '--sft-set',
      'sft',
      '--model',
      stories,
      '--steps',
      '1',
      '--group-size',
      '2',
      '--batch-size',
      '1',
      '--max-turns',
      '1',
      '--max-tokens',
      '16',
      '--targets',
      'wq,wv',
      '--rank',
      '2',
    );
    expect(trained.stderr).toBe('');
    expect(trained.stdout).toMatch(/^sft step 1 loss/m);
    expect(trained.stdout).toMatch(/^grpo step 1 loss/m);
    expect(trained.stdout).toMatch(/done: 1 steps/);
    const jobDir = /job \S+ in (\S+)/.exec(trained.stdout)?.[1] ?? '';
    expect(JSON.parse(readFileSync(join(jobDir, 'job.json'), 'utf8'))).toMatchObject({
      status: 'done',
      config: { sft: { set: 'sft' }, dataset: { format: 'ours' } },
    });
    const phases = readFileSync(join(jobDir, 'metrics.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { phase: string }).phase);
    expect(phases).toEqual(['sft', 'sft', 'grpo']);
    expect(cli('dataset', 'rename', 'mine', 'ours').status).toBe(0);
    expect(cli('dataset', 'delete', 'ours').stdout).toBe("deleted 'ours'\n");
  }, 180_000);

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
