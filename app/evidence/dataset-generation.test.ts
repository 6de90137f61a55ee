// Making evidence datasets in the workspace: papers grouped by similarity, a teacher's questions
// kept only with spans found verbatim, near-duplicates dropped, the split by group; a teacher that
// answers garbage (a fake OpenAI-compatible server), spans not in the paper and duplicates get their
// reasons; a stopped generation resumes at the next group; the dataset store's round trips, and
// SkyRL rows as RLM-SPEC section 4 has them, read back.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Completion, CompletionRequest, Provider } from '../models/index.ts';
import { createProvider } from '../models/index.ts';
import { sendOpenAIStream, startFakeServer } from '../models/fake-servers.test-support.ts';
import { PaperLibrary } from '../papers/index.ts';
import {
  DatasetNameTakenError,
  DatasetStore,
  openWorkspace,
  type Workspace,
} from '../store/index.ts';
import { exportDataset, importDataset } from './dataset-files.ts';
import {
  generateDataset,
  groupPapers,
  parseTeacherReply,
  questionOverlap,
  MalformedTeacherReplyError,
} from './dataset-generation.ts';
import { evidencePaper } from './paper-text.ts';
import type { EvidencePaper } from './question.ts';
import { parseSkyrlDataset } from './skyrl-dataset.ts';

const topics = [
  [
    'encoder',
    'We use a BiLSTM encoder with two layers.',
    'The encoder reads tokens left to right.',
  ],
  ['encoder', 'Our encoder is a transformer with six layers.', 'Encoder states feed the decoder.'],
  ['encoder', 'A convolutional encoder replaces recurrence.', 'The encoder has a window of five.'],
  ['encoder', 'We compare three encoder designs on parsing.', 'The best encoder is recurrent.'],
  ['vision', 'Images are resized to 224 pixels.', 'The vision backbone is a ResNet.'],
  ['vision', 'We segment images with a UNet.', 'Vision features are pooled per region.'],
  ['vision', 'Object detection uses anchor boxes.', 'The vision model runs at 30 frames.'],
];

let dir: string;
let workspace: Workspace;
let library: PaperLibrary;
let store: DatasetStore;
let papers: EvidencePaper[];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rlm-dataset-gen-'));
  const file = join(dir, 'papers.json');
  writeFileSync(
    file,
    JSON.stringify(
      Object.fromEntries(
        topics.map(([topic, a, b], i) => [
          `p${i}`,
          {
            title: `On ${topic ?? ''} number ${i}`,
            abstract: `A study of ${topic ?? ''} models.`,
            full_text: [{ section_name: 'Method', paragraphs: [a, b] }],
            qas: [],
          },
        ]),
      ),
    ),
  );
  workspace = openWorkspace(join(dir, 'ws'));
  library = new PaperLibrary(workspace.db);
  await library.importPaths('mini', [file]);
  store = new DatasetStore(workspace.db);
  papers = library.store
    .texts('mini')
    .map((p) => evidencePaper(p.id, p.title, p.abstract, p.fullText));
});

afterAll(async () => {
  await library.dispose();
  workspace.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Reads the `<paper id>` blocks of a generation prompt. */
function promptPapers(request: CompletionRequest): Map<string, string> {
  const content = request.messages[0]?.content ?? '';
  return new Map(
    [...content.matchAll(/<paper id="([^"]+)">\n([\s\S]*?)\n<\/paper>/g)].map((m) => [
      m[1] ?? '',
      m[2] ?? '',
    ]),
  );
}

/** A teacher whose replies a function writes from the prompt; it counts its calls. */
class FunctionTeacher implements Provider {
  readonly spec = 'scripted:teacher';
  calls = 0;
  readonly reply: (papers: Map<string, string>, turn: number) => string;
  constructor(reply: (papers: Map<string, string>, turn: number) => string) {
    this.reply = reply;
  }
  complete(request: CompletionRequest): Promise<Completion> {
    this.calls++;
    const text = this.reply(promptPapers(request), request.turn);
    return Promise.resolve({
      text,
      usage: { inputTokens: 100, outputTokens: 20 },
      costUsd: 0.001,
      model: 'teacher',
      finishReason: 'stop',
      latencyMs: 1,
    });
  }
}

/** Two questions per group, each citing a sentence copied from the group's first two papers. */
const honest = new FunctionTeacher((group) => {
  const entries = [...group.entries()];
  const sentence = (i: number) => {
    const [id, text] = entries[Math.min(i, entries.length - 1)] ?? ['', ''];
    const line = text.split('\n').find((l) => l.startsWith('We') || l.startsWith('Our')) ?? '';
    return { paperId: id, text: line };
  };
  return JSON.stringify({
    questions: [
      { question: `What does paper ${entries[0]?.[0]} propose?`, evidence: [sentence(0)] },
      {
        question: `How do the methods of ${entries.map(([id]) => id).join(' and ')} differ?`,
        evidence: [sentence(0), sentence(1)],
      },
    ],
  });
});

const options = (extra: Record<string, unknown> = {}) => ({
  set: 'mini',
  teacher: 'scripted:teacher',
  groupSize: 3,
  perGroup: 2,
  seed: 7,
  validation: 0.5,
  maxCharsPerPaper: 12_000,
  ...extra,
});

describe('grouping and parsing', () => {
  it('groups every paper once, similar papers together, the same on every run', () => {
    const groups = groupPapers(papers, 3, 7);
    expect(groups.flatMap((g) => g.paperIds).sort()).toEqual(papers.map((p) => p.id).sort());
    expect(groups.every((g) => g.paperIds.length <= 3)).toBe(true);
    expect(groupPapers(papers, 3, 7)).toEqual(groups);
    // No group mixes the encoder papers (p0-p3) with the vision ones (p4-p6) while one of its
    // topic is left for a later group.
    const topic = (id: string) => (Number(id.slice(1)) < 4 ? 'encoder' : 'vision');
    const mixed = groups.filter((g) => new Set(g.paperIds.map(topic)).size > 1);
    expect(mixed.length).toBeLessThanOrEqual(1);
  });

  it('takes strict JSON (a ```json fence at most) and names what is wrong otherwise', () => {
    expect(parseTeacherReply('```json\n{"questions": []}\n```')).toEqual([]);
    expect(() => parseTeacherReply('Sure! Here are questions: 1. ...')).toThrow(
      MalformedTeacherReplyError,
    );
    expect(() => parseTeacherReply('{"questions": [{"question": "x"}]}')).toThrow(
      /questions\.0\.evidence/,
    );
    expect(questionOverlap('Which encoder is used?', 'which encoder is used')).toBe(1);
    expect(questionOverlap('Which encoder is used?', 'How big are the images?')).toBeLessThan(0.2);
  });
});

describe('generateDataset', () => {
  it('keeps questions whose spans are in the papers verbatim, split by group, with provenance', async () => {
    const outcomes = await generateDataset({
      store,
      name: 'gen',
      options: options(),
      papers,
      teacher: honest,
      now: () => 1000,
    });
    const questions = store.questions('gen');
    expect(outcomes.every((o) => o.status === 'done')).toBe(true);
    expect(questions.length).toBeGreaterThan(0);
    const text = new Map(papers.map((p) => [p.id, p.text]));
    for (const q of questions) {
      for (const span of q.gold) {
        expect(text.get(span.paperId)?.slice(span.start, span.end)).toBe(span.text);
      }
      const outcome = outcomes.find((o) => o.group === q.group);
      expect(q.split).toBe(outcome?.split);
      expect(q.provenance).toEqual({
        kind: 'teacher',
        teacher: 'scripted:teacher',
        prompt: 'dataset-questions.v1.md',
        at: 1000,
      });
    }
    const summary = store.get('gen');
    expect(summary.groupsDone).toBe(outcomes.length);
    expect(summary.costUsd).toBeCloseTo(0.001 * outcomes.length, 9);
    expect(summary.train + summary.validation).toBe(summary.questions);
  });

  it('gives a garbage teacher each reason, keeps its replies, and resumes where it stopped', async () => {
    let call = 0;
    const server = await startFakeServer((request, response) => {
      call++;
      if (call === 1) {
        sendOpenAIStream(response, ['I cannot answer in JSON, sorry.']);
        return;
      }
      const body = request.body as { messages: { content: string }[] };
      const group = promptPapers({
        messages: [{ role: 'user', content: body.messages.at(-1)?.content ?? '' }],
        agentId: '0',
        turn: 0,
      });
      const [id = '', text = ''] = [...group.entries()][0] ?? [];
      const line = text.split('\n').find((l) => l.startsWith('We') || l.startsWith('Our')) ?? '';
      const reply = {
        questions: [
          { question: `What does ${id} do first?`, evidence: [{ paperId: id, text: line }] },
          { question: `What does ${id} do first`, evidence: [{ paperId: id, text: line }] },
          {
            question: 'Which encoder is best?',
            evidence: [{ paperId: id, text: 'This sentence is in no paper at all.' }],
          },
          {
            question: 'Which paper uses six layers?',
            evidence: [{ paperId: 'nope', text: 'six' }],
          },
        ],
      };
      sendOpenAIStream(response, [JSON.stringify(reply)]);
    });
    try {
      const teacher = await createProvider(`openai-compatible:teacher@${server.origin}/v1`, {
        env: { OPENAI_API_KEY: 'sk-test' },
      });
      const controller = new AbortController();
      const first = await generateDataset({
        store,
        name: 'garbage',
        options: options({ teacher: teacher.spec }),
        papers,
        teacher,
        onProgress: () => {
          controller.abort();
        },
        signal: controller.signal,
      }).catch((error: unknown) => error);
      expect(first).toBeInstanceOf(Error);
      const outcomes = store.groupOutcomes('garbage');
      expect(outcomes.length).toBeGreaterThan(0);
      const [failed] = outcomes;
      expect(failed?.status).toBe('failed');
      expect(failed?.reply).toBe('I cannot answer in JSON, sorry.');
      expect(failed?.error?.name).toBe('MalformedTeacherReplyError');
      // Resume: the failed group is asked again, groups done are not.
      const before = call;
      const all = await generateDataset({
        store,
        name: 'garbage',
        options: options({ teacher: teacher.spec }),
        papers,
        teacher,
      });
      const groups = groupPapers(papers, 3, 7).length;
      expect(call - before).toBe(groups - outcomes.filter((o) => o.status === 'done').length);
      const reasons = all.flatMap((o) => o.dropped.map((d) => d.reason));
      expect(
        reasons.some((r) => /^a span is not in paper 'p\d' verbatim: "This sentence/.test(r)),
      ).toBe(true);
      expect(reasons).toContain("a span names paper 'nope', which is not in the group");
      expect(reasons.some((r) => r.startsWith('a near-duplicate of'))).toBe(true);
      // Every reply the teacher gave is kept, the failed attempts' too.
      expect(all.length).toBe(call);
      expect(all.every((o) => o.reply !== null)).toBe(true);
    } finally {
      await server.close();
    }
  }, 30_000);

  it('refuses to resume a dataset made with other options, and a set without papers', async () => {
    await expect(
      generateDataset({
        store,
        name: 'gen',
        options: options({ perGroup: 3 }),
        papers,
        teacher: honest,
      }),
    ).rejects.toThrow(/was not generated with these options/);
    await expect(
      generateDataset({ store, name: 'empty', options: options(), papers: [], teacher: honest }),
    ).rejects.toThrow(/has no papers/);
  });
});

describe('the dataset store and its files', () => {
  it('renames, edits, filters and deletes; names stay unique', () => {
    const made = store.create('hand', 5);
    expect(() => store.create('hand', 6)).toThrow(DatasetNameTakenError);
    store.addQuestions(
      'hand',
      [
        {
          id: 'h1',
          question: 'Which encoder has six layers?',
          set: 'mini',
          paperIds: ['p1'],
          gold: [],
          split: 'train',
          group: null,
          status: 'pending',
          provenance: { kind: 'hand', at: 5 },
          editedAt: null,
        },
      ],
      5,
    );
    const paper = papers.find((p) => p.id === 'p1');
    const start = paper?.text.indexOf('six layers') ?? -1;
    const edited = store.editQuestion(
      'hand',
      'h1',
      { gold: [{ paperId: 'p1', start, end: start + 10, text: 'six layers' }], status: 'approved' },
      9,
    );
    expect(edited).toMatchObject({ status: 'approved', editedAt: 9 });
    expect(store.questions('hand', { status: 'approved', source: 'hand' })).toHaveLength(1);
    expect(store.questions('hand', { text: 'ENCODER' })).toHaveLength(1);
    expect(store.rename('hand', 'handmade', 10).id).toBe(made.id);
    expect(store.get('handmade').approved).toBe(1);
    store.delete('handmade');
    expect(store.has('handmade')).toBe(false);
  });

  it('exports SkyRL rows as RLM-SPEC section 4 has them, and imports them back', async () => {
    const text = exportDataset(store, library, 'gen', { format: 'skyrl' });
    const rows = text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(rows.length).toBe(store.get('gen').questions);
    for (const row of rows) {
      expect(Object.keys(row).sort()).toEqual(
        ['env_class', 'extra_info', 'max_turns', 'prompt', 'reward_spec'].sort(),
      );
      expect(row.env_class).toBe('rlm');
    }
    const parsed = parseSkyrlDataset('back', text);
    expect(parsed.issues).toEqual([]);
    expect(parsed.questions.map((q) => q.question)).toEqual(
      store.questions('gen').map((q) => q.question),
    );
    const file = join(dir, 'gen.jsonl');
    writeFileSync(file, exportDataset(store, library, 'gen', { format: 'ours' }));
    const report = await importDataset({
      store,
      library,
      path: file,
      format: 'ours',
      name: 'gen-copy',
      now: 20,
    });
    expect(report.issues).toEqual([]);
    const copy = store.questions('gen-copy');
    expect(copy.map((q) => [q.id, q.question, q.gold, q.split])).toEqual(
      store.questions('gen').map((q) => [q.id, q.question, q.gold, q.split]),
    );
    expect(copy[0]?.provenance).toMatchObject({ kind: 'imported', format: 'ours' });
    expect(readFileSync(file, 'utf8').split('\n')[0]).toContain('"spans"');
  });
});
