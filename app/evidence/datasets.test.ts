// Dataset loading: our JSON lines (bad rows reported by line, the rest loaded), SkyRL rows read
// and written, QASPER questions over the same text app/papers stores, the multi-paper groups.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PaperLibrary } from '../papers/index.ts';
import { openWorkspace, type Workspace } from '../store/index.ts';
import { paperLookup } from './load.ts';
import { parseOurDataset, toOurRow } from './studio-dataset.ts';
import { evidencePaper } from './paper-text.ts';
import { parseQasperDataset } from './qasper-dataset.ts';
import { mostSimilarPapers } from './similar-papers.ts';
import { parseSkyrlDataset, questionFromPrompt, toSkyrlRow } from './skyrl-dataset.ts';

const qasperSubset = new URL(
  '../../../shared/data/qasper/qasper_test_v0.3_subset_papers_with_pdf.json',
  import.meta.url,
).pathname;

describe('our format', () => {
  it('loads good rows and reports each bad one with its line and reason', () => {
    const good = { id: 'q1', question: 'What?', set: 's', gold: [{ paperId: 'a', text: 'x' }] };
    const text = [
      JSON.stringify(good),
      '',
      '{"id": "q2", "question": ',
      JSON.stringify({ ...good, id: 'q3', gold: [{ paperId: 'a', text: 5 }] }),
      JSON.stringify({ ...good, id: 'q4', paperIds: ['b'] }),
      JSON.stringify({ ...good, id: 'q5', set: undefined }),
      JSON.stringify(good),
      JSON.stringify({ ...good, id: 'q6', paperIds: ['a', 'b'], metadata: { tier: 'focused' } }),
    ].join('\n');
    const dataset = parseOurDataset('mine', text);
    expect(dataset.questions.map((q) => q.id)).toEqual(['q1', 'q6']);
    expect(dataset.questions[1]).toMatchObject({
      paperIds: ['a', 'b'],
      metadata: { tier: 'focused' },
    });
    expect(dataset.issues).toEqual([
      { line: 3, reason: expect.stringMatching(/^not valid JSON/) as unknown },
      { line: 4, id: 'q3', reason: expect.stringMatching(/^field 'gold\.0\.text'/) as unknown },
      { line: 5, id: 'q4', reason: "field 'gold.0.paperId': 'a' is not one of the row's paperIds" },
      { line: 6, id: 'q5', reason: expect.stringMatching(/^field 'set'/) as unknown },
      { line: 7, id: 'q1', reason: "duplicate id 'q1' (first on line 1)" },
    ]);
    const [first] = dataset.questions;
    if (!first) throw new Error('no question');
    expect(parseOurDataset('again', JSON.stringify(toOurRow(first))).questions).toEqual([first]);
  });
});

describe('SkyRL rows', () => {
  const referenceRow = {
    prompt: [
      {
        role: 'user',
        content:
          'Extract verbatim text passages from the context that serve as evidence for the query: Which encoder is used?\nReturn a Python list.',
      },
    ],
    env_class: 'rlm',
    reward_spec: {
      ground_truth: null,
      evidence: [
        { paperId: '2205.05212', selections: [{ text: 'a BiLSTM encoder' }, { text: ' ' }] },
      ],
    },
    max_turns: 6,
    extra_info: {
      context_text: JSON.stringify({
        '2205.05212':
          '### PAPER: Encoders\n<abstract>\nWe compare encoders.\n</abstract>\nWe use a BiLSTM encoder.',
        '1111.2222': '### PAPER: Other\nNo abstract here.',
      }),
    },
  };

  it('reads the reference layout: question, papers, evidence', () => {
    const dataset = parseSkyrlDataset('train', JSON.stringify(referenceRow));
    expect(dataset.issues).toEqual([]);
    const [question] = dataset.questions;
    expect(question).toMatchObject({
      id: 'line-1',
      question: 'Which encoder is used?',
      set: 'skyrl-train',
      paperIds: ['2205.05212', '1111.2222'],
      gold: [{ paperId: '2205.05212', text: 'a BiLSTM encoder' }],
      metadata: { maxTurns: 6 },
    });
    const paper = dataset.papers.get('skyrl-train')?.get('2205.05212');
    expect(paper).toMatchObject({
      title: 'Encoders',
      abstract: 'We compare encoders.',
      fullText: 'We use a BiLSTM encoder.',
    });
    expect(paper?.text).toBe(
      '### PAPER: Encoders\n\nWe compare encoders.\n\nWe use a BiLSTM encoder.',
    );
  });

  it('writes rows that read back the same, renames clashing paper ids, reports bad rows', () => {
    const papers = [
      evidencePaper('p1', 'Title one', 'Abstract one.', 'Body one, with a span.'),
      evidencePaper('p2', 'Title two', '', 'Body two.'),
    ];
    const question = {
      id: 'q-7',
      question: 'Where is the span?',
      set: 'x',
      paperIds: ['p1', 'p2'],
      gold: [{ paperId: 'p1', text: 'with a span' }],
      metadata: {},
    };
    const row = toSkyrlRow(question, papers, 8);
    expect(questionFromPrompt((row.prompt as { content: string }[])[0]?.content ?? '')).toBe(
      'Where is the span?',
    );
    const clash = {
      ...referenceRow,
      extra_info: { context_text: JSON.stringify({ p1: '### PAPER: Changed\nOther text.' }) },
      reward_spec: { evidence: [{ paperId: 'p1', selections: [{ text: 'Other' }] }] },
    };
    const text = [
      JSON.stringify(row),
      '{"prompt": "q", "reward_spec": {"evidence": []}, "extra_info": {"context_text": "{oops"}}',
      JSON.stringify(clash),
      JSON.stringify({
        ...referenceRow,
        reward_spec: { evidence: [{ paperId: 'zz', selections: [] }] },
      }),
    ].join('\n');
    const dataset = parseSkyrlDataset('rt', text);
    const [back, renamed] = dataset.questions;
    expect(back).toMatchObject({ ...question, set: 'skyrl-rt', metadata: { maxTurns: 8 } });
    const set = dataset.papers.get('skyrl-rt');
    expect(set?.get('p1')?.text).toBe(papers[0]?.text);
    expect(set?.get('p2')?.text).toBe(papers[1]?.text);
    expect(renamed?.paperIds).toEqual(['p1~2']);
    expect(renamed?.gold).toEqual([{ paperId: 'p1~2', text: 'Other' }]);
    expect(dataset.issues.map((issue) => issue.line)).toEqual([2, 4]);
    expect(dataset.issues[0]?.reason).toMatch(/context_text is not a JSON string/);
    expect(dataset.issues[1]?.reason).toMatch(/names paper 'zz'/);
  });
});

describe('QASPER', () => {
  let dir: string;
  let workspace: Workspace;
  let library: PaperLibrary;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'rlm-evidence-'));
    workspace = openWorkspace(join(dir, 'ws'));
    library = new PaperLibrary(workspace.db, { poolSize: 1 });
  });
  afterAll(async () => {
    await library.dispose();
    workspace.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('gives each question its evidence over the text app/papers stores for the same file', async () => {
    const data = new Uint8Array(readFileSync(qasperSubset));
    const dataset = parseQasperDataset(qasperSubset, data);
    const raw = JSON.parse(readFileSync(qasperSubset, 'utf8')) as Record<
      string,
      { qas: unknown[] }
    >;
    expect(dataset.questions.length).toBe(
      Object.values(raw).reduce((n, paper) => n + paper.qas.length, 0),
    );
    expect(dataset.issues).toEqual([]);
    const set = 'qasper_test_v0.3_subset_papers_with_pdf';
    const question = dataset.questions.find((q) => q.gold.length > 0);
    expect(question?.set).toBe(set);
    expect(question?.paperIds).toHaveLength(1);
    expect(question?.annotations?.length).toBeGreaterThan(0);

    await library.importPaths(set, [qasperSubset]);
    const fromDataset = paperLookup(dataset, null);
    const fromWorkspace = paperLookup({ ...dataset, papers: new Map() }, library);
    for (const q of dataset.questions) {
      const [own] = fromDataset(q);
      const [stored] = fromWorkspace(q);
      expect(stored?.text).toBe(own?.text);
      for (const unit of own?.units ?? []) {
        const slice = own?.text.slice(unit.start, unit.end) ?? '';
        expect(unit.evidence.replace(/^FLOAT SELECTED: /, '').trim()).toBe(slice.trim());
      }
      for (const span of q.gold) expect(own?.annotatedEvidence?.has(span.text)).toBe(true);
    }
  });

  it('reports a malformed paper by id and loads the rest', () => {
    const good = {
      title: 'T',
      abstract: 'A',
      full_text: [{ section_name: 'Intro', paragraphs: ['p one', 'p two'] }],
      figures_and_tables: [{ file: 'x.png', caption: 'Table 1: Numbers.' }],
      qas: [
        {
          question: 'Q? ',
          question_id: 'qid',
          answers: [
            {
              answer: {
                unanswerable: false,
                extractive_spans: ['p'],
                yes_no: null,
                free_form_answer: '',
                evidence: ['p two', 'FLOAT SELECTED: Table 1: Numbers.'],
              },
            },
            {
              answer: {
                unanswerable: true,
                extractive_spans: [],
                yes_no: null,
                free_form_answer: '',
                evidence: ['ignored'],
              },
            },
          ],
        },
      ],
    };
    const json = JSON.stringify({ good, bad: { title: 1 } });
    const dataset = parseQasperDataset('x.json', new TextEncoder().encode(json), {
      textEvidenceOnly: true,
    });
    expect(dataset.issues).toEqual([
      { id: 'bad', reason: expect.stringMatching(/^paper bad: field 'title'/) as unknown },
    ]);
    expect(dataset.questions).toMatchObject([
      {
        id: 'qid',
        question: 'Q?',
        annotations: [['p two'], []],
        gold: [{ paperId: 'good', text: 'p two' }],
      },
    ]);
    expect(dataset.papers.get('x')?.get('good')?.fullText).toBe(
      'Intro\np one\n\np two\n\nFigures and tables\nTable 1: Numbers.',
    );
  });

  it('groups each question with the most similar papers (TF-IDF cosine)', () => {
    const topic = (words: string, n: number) => `${words} `.repeat(20) + ` paper number ${n}`;
    const papers = [
      { id: 'bio1', text: topic('protein folding enzyme cell', 1) },
      { id: 'nlp1', text: topic('transformer attention token language', 2) },
      { id: 'bio2', text: topic('protein enzyme membrane cell', 3) },
      { id: 'nlp2', text: topic('transformer language parsing token', 4) },
      { id: 'bio3', text: topic('cell membrane protein biology', 5) },
      { id: 'nlp3', text: topic('attention language translation token', 6) },
    ];
    const similar = mostSimilarPapers(papers, 2);
    expect(new Set(similar.get('bio1'))).toEqual(new Set(['bio2', 'bio3']));
    expect(new Set(similar.get('nlp2'))).toEqual(new Set(['nlp1', 'nlp3']));

    const paper = (title: string, words: string) => ({
      title,
      abstract: '',
      full_text: [{ section_name: 'Body', paragraphs: [topic(words, 0)] }],
      qas: [],
    });
    const json = JSON.stringify({
      ...Object.fromEntries(papers.map((p) => [p.id, paper(p.id, p.text)])),
      seed: {
        ...paper('seed', 'protein folding enzyme cell membrane'),
        qas: [{ question: 'Which protein?', question_id: 'q', answers: [] }],
      },
    });
    const dataset = parseQasperDataset('groups.json', new TextEncoder().encode(json), {
      multiPaper: true,
      groupSize: 4,
    });
    const [question] = dataset.questions;
    expect(new Set(question?.paperIds)).toEqual(new Set(['seed', 'bio1', 'bio2', 'bio3']));
  });
});
