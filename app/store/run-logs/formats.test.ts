// The other tools' logs, written here in each documented shape: alexzhang13/rlm 0.1.3 (answer
// dict, usage_summary, no run separator), DSPy's dspy.RLM predictions (JSON lines, a JSON array, a
// bare trajectory, with and without the LM history) and nano-rlm session folders (nested sub-call
// folders, failed sessions, a bad line in a child's messages.jsonl), malformed ones included.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { foldRun } from '../../run-log/index.ts';
import { openWorkspace, RunStore, type Workspace } from '../index.ts';
import { UnknownRunLogFormatError, RunLogPathError, EmptyRunLogError } from './errors.ts';
import { importRunLog, parseRunLog } from './import.ts';
import { importRunLogPath } from './sources.ts';

/** The id of the i-th run of a report or follow ('' where there is none, which fails the test). */
const idAt = (runs: readonly { runId: string }[], i: number) => runs[i]?.runId ?? '';
const stringContaining = (text: string): unknown => expect.stringContaining(text);

let dir: string;
let workspace: Workspace;
let store: RunStore;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rlm-formats-'));
  workspace = openWorkspace(join(dir, 'workspace'));
  store = new RunStore(workspace.db);
});
afterEach(() => {
  workspace.close();
  rmSync(dir, { recursive: true, force: true });
});

const jsonl = (...values: unknown[]) => values.map((value) => JSON.stringify(value)).join('\n');
const view = (runId: string) => foldRun(store.events(runId));
const contextChars = (runId: string, agentId = '0') => {
  const spawned = store
    .events(runId)
    .find((event) => event.kind === 'agent.spawned' && event.agentId === agentId);
  return spawned?.kind === 'agent.spawned' ? spawned.contextChars : undefined;
};
const llmCalls = (turn: { children: { call: string }[] } | undefined) =>
  turn?.children.filter((child) => child.call === 'llm').length;

describe('alexzhang13/rlm 0.1.3 logs', () => {
  const rootPrompt = (question: string, chars: string) => [
    { role: 'system', content: 'You are tasked with answering a query with associated context.' },
    {
      role: 'assistant',
      content: `Your context is a str of ${chars} total characters, and is broken up into chunks of char lengths: [${chars}].`,
    },
    {
      role: 'user',
      content: `Answer the following: ${question}\n\nYour context is a str of ${chars} total characters.`,
    },
    {
      role: 'user',
      content:
        'You have not interacted with the REPL environment or seen your prompt / context yet.\n\nTurn 1/6: Think step-by-step on what to do using the REPL environment (which contains the context) to answer the prompt.',
    },
  ];
  const subCall = (
    prompt: string,
    response: string,
    input: number,
    output: number,
    cost: number,
  ) => ({
    root_model: 'gpt-5-mini',
    prompt,
    response,
    usage_summary: {
      model_usage_summaries: {
        'gpt-5-mini': {
          total_calls: 1,
          total_input_tokens: input,
          total_output_tokens: output,
          total_cost: cost,
        },
      },
      total_cost: cost,
    },
    execution_time: 0.4,
  });
  const iteration = (
    n: number,
    prompt: unknown,
    code: string,
    locals: unknown,
    calls: unknown[],
    final: unknown,
  ) => ({
    type: 'iteration',
    iteration: n,
    timestamp: `2026-03-02T10:00:0${n}.000000`,
    prompt,
    response: `Let me look.\n\`\`\`repl\n${code}\n\`\`\``,
    code_blocks: [
      {
        code,
        result: { stdout: 'ok\n', stderr: '', locals, execution_time: 0.2, rlm_calls: calls },
      },
    ],
    final_answer: final,
    iteration_time: 0.9,
  });
  const meta = {
    type: 'metadata',
    timestamp: '2026-03-02T10:00:00.000000',
    root_model: 'gpt-5-mini',
    max_depth: 1,
    max_iterations: 6,
    backend: 'openai',
  };

  it('takes the question from the root prompt, the context size, tokens and cost, the answer dict', () => {
    const text = jsonl(
      meta,
      iteration(
        1,
        rootPrompt('Which datasets does the paper use?', '12,345'),
        'print(context[:100])',
        {},
        [
          subCall('Summarise chunk 1', 'It uses SQuAD.', 120, 30, 0.0012),
          subCall('Summarise chunk 2', 'And TriviaQA.', 80, 20, 0.0008),
        ],
        null,
      ),
      iteration(
        2,
        rootPrompt('Which datasets does the paper use?', '12,345'),
        'answer["content"] = "SQuAD and TriviaQA"\nanswer["ready"] = True',
        { answer: "{'content': 'SQuAD and TriviaQA', 'ready': True}" },
        [],
        null,
      ),
      // A second completion in the same file: rlm 0.1.3 writes no separator, the count restarts.
      iteration(
        1,
        rootPrompt('How many layers?', '900'),
        'x = 1',
        {},
        [subCall('q', 'six', 10, 2, 0.0001)],
        '6',
      ),
    );
    const report = importRunLog(store, text, { source: 'the 0.1.3 log' });
    expect(report.format).toBe('rlm-log');
    expect(report.problems).toEqual([]);
    expect(report.runs.map((run) => run.question)).toEqual([
      'Which datasets does the paper use?',
      'How many layers?',
    ]);
    const [first, second] = report.runs.map((run) => store.get(run.runId));
    expect(first).toMatchObject({
      status: 'done',
      answer: 'SQuAD and TriviaQA',
      model: 'gpt-5-mini',
      turns: 2,
      inputTokens: 200,
      outputTokens: 50,
    });
    expect(first?.costUsd).toBeCloseTo(0.002, 9);
    expect(second).toMatchObject({ status: 'done', answer: '6', turns: 1 });
    expect(contextChars(idAt(report.runs, 0))).toBe(12_345);
    expect(llmCalls(view(idAt(report.runs, 0)).agents.get('0')?.turns[0])).toBe(2);
    expect(contextChars(idAt(report.runs, 1))).toBe(900);
  });

  it('reads the old wording ("with N total characters") and the question the instruction quotes', () => {
    const prompt = [
      { role: 'system', content: 'You are tasked with answering a query.' },
      { role: 'user', content: 'Your context is a list with 4,000 total characters.' },
      {
        role: 'user',
        content:
          'Think step-by-step on what to do using the REPL environment to answer the original prompt: "What is the F1?".',
      },
    ];
    const report = importRunLog(
      store,
      jsonl(meta, { ...iteration(1, prompt, 'y = 2', {}, [], 'FINAL(0.8)'), iteration: undefined }),
    );
    expect(report.runs[0]?.question).toBe('What is the F1?');
    expect(contextChars(idAt(report.runs, 0))).toBe(4000);
    expect(store.get(idAt(report.runs, 0)).answer).toBe('FINAL(0.8)');
  });

  it('names the field an iteration lacks and keeps the others', () => {
    const text = jsonl(
      meta,
      { type: 'iteration', iteration: 1, prompt: 'p', code_blocks: [] },
      iteration(2, rootPrompt('Q?', '10'), 'z = 3', {}, [], 'done'),
    );
    const report = importRunLog(store, text);
    expect(report.problems).toEqual([
      expect.objectContaining({
        line: 2,
        message: stringContaining('without a response string'),
      }),
    ]);
    expect(report.runs).toHaveLength(1);
  });
});

describe('DSPy RLM predictions', () => {
  const steps = [
    { reasoning: 'Look at the context first.', code: 'print(len(context))', output: '5120' },
    {
      reasoning: 'Ask a sub-LM about the methods section.',
      code: 'summary = llm_query("What method?")\nprint(summary)',
      output: 'A transformer.',
    },
    {
      reasoning: 'Done.',
      code: 'SUBMIT(answer="a transformer")',
      output: "FINAL: {'answer': 'a transformer'}",
    },
  ];

  it('imports pred.toDict() lines with their inputs, output fields and steps', () => {
    const text = jsonl(
      {
        question: 'What method is used?',
        context: 'x'.repeat(5120),
        answer: 'a transformer',
        trajectory: steps,
        final_reasoning: 'Submitted.',
      },
      {
        question: 'Two outputs?',
        prediction: { answer: 'yes', confidence: 0.9, repl_trajectory: steps.slice(0, 1) },
      },
    );
    const report = importRunLog(store, text, { source: 'the dump' });
    expect(report.format).toBe('dspy');
    expect(report.problems).toEqual([]);
    const [one, two] = report.runs.map((run) => store.get(run.runId));
    expect(one).toMatchObject({
      question: 'What method is used?',
      status: 'done',
      answer: 'a transformer',
      turns: 3,
    });
    expect(two).toMatchObject({
      question: 'Two outputs?',
      answer: { answer: 'yes', confidence: 0.9 },
      turns: 1,
    });
    const root = view(idAt(report.runs, 0)).agents.get('0');
    expect(contextChars(idAt(report.runs, 0))).toBe(5120);
    expect(root?.turns.map((turn) => turn.code[0]?.code)).toEqual(steps.map((step) => step.code));
    expect(root?.turns[0]?.code[0]?.stdout).toBe('5120');
  });

  it('gives each turn its LM call (prompt, tokens, cost) and the sub-LM calls their turn', () => {
    const at = (s: number) => `2026-04-01T09:00:${String(s).padStart(2, '0')}.000000`;
    const action = (s: number, code: string, input: number) => ({
      timestamp: at(s),
      model: 'openai/gpt-4.1-mini',
      messages: [{ role: 'user', content: `turn at ${s}` }],
      outputs: [
        `[[ ## reasoning ## ]]\nthinking\n\n[[ ## code ## ]]\n${code}\n\n[[ ## completed ## ]]`,
      ],
      usage: { prompt_tokens: input, completion_tokens: 40 },
      cost: 0.01,
    });
    const sub = (s: number, text: string) => ({
      timestamp: at(s),
      model: 'openai/gpt-4.1-nano',
      prompt: 'What method?',
      outputs: [{ text }],
      usage: { prompt_tokens: 7, completion_tokens: 3 },
      cost: 0.001,
    });
    const record = {
      question: 'What method is used?',
      answer: 'a transformer',
      trajectory: steps,
      lm_history: [
        action(1, steps[0]?.code ?? '', 100),
        action(2, steps[1]?.code ?? '', 200),
        sub(3, 'A transformer.'),
        action(4, steps[2]?.code ?? '', 300),
      ],
    };
    const report = importRunLog(store, JSON.stringify(record));
    const run = store.get(idAt(report.runs, 0));
    expect(run.model).toBe('openai/gpt-4.1-mini');
    expect([run.inputTokens, run.outputTokens]).toEqual([600 + 7, 120 + 3]);
    expect(run.costUsd).toBeCloseTo(0.031, 9);
    const root = view(run.id).agents.get('0');
    expect(root?.turns.map(llmCalls)).toEqual([0, 1, 0]);
    expect(root?.turns[1]?.messages).toEqual([{ role: 'user', content: 'turn at 2' }]);
  });

  it('reads a JSON array (json.dump, indented) and a bare trajectory of steps', () => {
    const array = JSON.stringify([{ question: 'A?', answer: 'a', trajectory: steps }], null, 2);
    expect(importRunLog(store, array).runs).toHaveLength(1);
    const bare = importRunLog(store, jsonl(...steps));
    expect(bare.format).toBe('dspy');
    // No output field: SUBMIT's printed FINAL is the answer.
    expect(store.get(idAt(bare.runs, 0))).toMatchObject({ status: 'done', turns: 3 });
    expect(store.get(idAt(bare.runs, 0)).answer).toBe("{'answer': 'a transformer'}");
  });

  it('names the malformed step and imports the other records; an unfinished run is interrupted', () => {
    const text = jsonl(
      { question: 'Broken', answer: 'x', trajectory: [{ reasoning: 'r', code: 'print(1)' }] },
      { question: 'Fine', answer: 'y', trajectory: steps.slice(0, 1) },
      {
        question: 'Out of iterations',
        trajectory: steps.slice(0, 2),
        final_reasoning: 'Extract forced final output',
      },
      'not a record',
    );
    const report = importRunLog(store, text);
    expect(report.problems.map((p) => [p.line, p.message])).toEqual([
      [1, expect.stringContaining("trajectory step 1 has no 'output' string")],
      [4, expect.stringContaining('not a DSPy RLM record')],
    ]);
    expect(report.runs.map((run) => [run.question, run.status])).toEqual([
      ['Fine', 'done'],
      ['Out of iterations', 'interrupted'],
    ]);
    const forced = store.get(idAt(report.runs, 1));
    expect(forced.error?.message).toContain('max_iters');
  });
});

/** Writes a nano-rlm session folder: meta.json and messages.jsonl. */
function session(path: string, meta: Record<string, unknown>, lines: unknown[], raw = ''): void {
  mkdirSync(path, { recursive: true });
  writeFileSync(join(path, 'meta.json'), JSON.stringify(meta));
  writeFileSync(join(path, 'messages.jsonl'), `${jsonl(...lines)}\n${raw}`);
}
const t0 = 1_767_000_000;
const user = (content: string, s: number) => ({ type: 'user', content, timestamp: t0 + s });
const python = (code: string, s: number) => ({
  type: 'assistant',
  content: '',
  tool_calls: [{ id: `c${s}`, name: 'python', args: { code } }],
  timestamp: t0 + s,
});
const result = (content: string, s: number) => ({
  type: 'tool_result',
  content,
  duration: 0.1,
  timestamp: t0 + s,
});
const reply = (content: string, s: number) => ({ type: 'assistant', content, timestamp: t0 + s });
const done = (answer: string, s: number, tokens: [number, number]) => ({
  type: 'done',
  answer,
  usage: { prompt_tokens: tokens[0], completion_tokens: tokens[1] },
  timestamp: t0 + s,
});
const spawn = (child: string, prompt: string, s: number) => ({
  type: 'sub_spawn',
  child_dir: child,
  prompt,
  timestamp: t0 + s,
});

/** A root session with a child (which has a child of its own) and a second child that failed. */
function nanoTree(root: string): void {
  session(root, { model: 'anthropic/claude-sonnet', depth: 0, status: 'done', start_time: t0 }, [
    { type: 'system', content: 'You are an RLM.', timestamp: t0 },
    user('Compare the two papers.', 0),
    python('a = rlm("Read paper A")\nb = rlm("Read paper B")', 1),
    spawn('sub-aa11', 'Read paper A', 2),
    spawn('sub-bb22', 'Read paper B', 6),
    result('A: attention. B: error', 9),
    reply('Paper A uses attention; B could not be read.', 10),
    done('Paper A uses attention; B could not be read.', 10, [900, 120]),
  ]);
  session(join(root, 'sub-aa11'), { depth: 1, status: 'done', start_time: t0 + 2 }, [
    user('Read paper A', 2),
    python('print(rlm("Find the method"))', 3),
    spawn('sub-cc33', 'Find the method', 3),
    result('attention', 5),
    reply('attention', 5),
    done('attention', 5, [300, 20]),
  ]);
  session(join(root, 'sub-aa11', 'sub-cc33'), { depth: 2, status: 'done', start_time: t0 + 3 }, [
    user('Find the method', 3),
    reply('attention', 4),
    done('attention', 4, [50, 5]),
  ]);
  session(
    join(root, 'sub-bb22'),
    { depth: 1, status: 'failed', error: 'context window exceeded', start_time: t0 + 6 },
    [user('Read paper B', 6), python('print(open("b.txt").read())', 7)],
    '{"type": "tool_result", "content": \n',
  );
  // Bash jobs keep a meta.json of their own: never a session.
  mkdirSync(join(root, 'jobs', 'j1'), { recursive: true });
  writeFileSync(join(root, 'jobs', 'j1', 'meta.json'), '{"pid": 1}');
}

describe('nano-rlm session folders', () => {
  it('imports the tree of sub-call folders, their answers, failures and usage', () => {
    const root = join(dir, 'sessions', '20260301-120000-ab12cd');
    nanoTree(root);
    const report = importRunLogPath(store, root);
    expect(report.failures).toEqual([]);
    const [log] = report.logs;
    expect(log?.format).toBe('nano-rlm');
    expect(log?.problems).toEqual([
      expect.objectContaining({
        file: 'sub-bb22/messages.jsonl',
        line: 3,
        name: 'RunLogLineError',
      }),
    ]);
    const run = store.get(idAt(log?.runs ?? [], 0));
    expect(run).toMatchObject({
      question: 'Compare the two papers.',
      model: 'anthropic/claude-sonnet',
      status: 'done',
      answer: 'Paper A uses attention; B could not be read.',
      agents: 4,
      inputTokens: 1250,
      outputTokens: 145,
    });
    const agents = view(run.id).agents;
    expect([...agents.keys()].sort()).toEqual(['0', '0.0', '0.0.0', '0.1']);
    expect(agents.get('0.0')?.parentId).toBe('0');
    expect(agents.get('0.0.0')).toMatchObject({ parentId: '0.0', depth: 2, answer: 'attention' });
    expect(agents.get('0.1')?.error?.message).toBe('context window exceeded');
    expect(agents.get('0')?.turns[0]?.code[0]?.code).toContain('rlm("Read paper A")');
  });

  it('imports a folder of sessions, each a run, and a session cut off mid-way as interrupted', () => {
    const sessions = join(dir, 'sessions');
    nanoTree(join(sessions, 'a-done'));
    session(join(sessions, 'b-cut'), { status: 'running', start_time: t0 }, [
      user('Still going?', 0),
      python('print(1)', 1),
    ]);
    const report = importRunLogPath(store, sessions);
    expect(report.logs.map((log) => store.get(idAt(log.runs, 0)).status)).toEqual([
      'done',
      'interrupted',
    ]);
  });

  it('says a messages.jsonl alone is a nano-rlm file to import as its folder', () => {
    expect(() =>
      parseRunLog(jsonl(python('x', 1), result('y', 2)), { source: "'messages.jsonl'" }),
    ).toThrow(/nano-rlm messages\.jsonl: import the session folder/);
  });
});

describe('paths and unknown formats', () => {
  it('imports a folder of log files, names the one that fails, keeps the others', () => {
    const logs = join(dir, 'logs');
    mkdirSync(logs);
    writeFileSync(
      join(logs, 'a.jsonl'),
      jsonl({ question: 'Q', answer: 'A', trajectory: [{ code: 'x', output: 'y' }] }),
    );
    writeFileSync(join(logs, 'b.jsonl'), jsonl({ hello: 'world' }));
    writeFileSync(join(logs, 'notes.txt'), 'not a log');
    const report = importRunLogPath(store, logs);
    expect(report.logs.map((log) => log.source)).toEqual([join(logs, 'a.jsonl')]);
    expect(report.failures).toEqual([
      {
        source: join(logs, 'b.jsonl'),
        name: 'UnknownRunLogFormatError',
        message: stringContaining('the first has hello'),
      },
    ]);
  });

  it('names a missing path, an empty folder and a folder where nothing imports', () => {
    expect(() => importRunLogPath(store, join(dir, 'nope'))).toThrow(RunLogPathError);
    mkdirSync(join(dir, 'empty'));
    expect(() => importRunLogPath(store, join(dir, 'empty'))).toThrow(/holds no run log/);
    mkdirSync(join(dir, 'bad'));
    writeFileSync(join(dir, 'bad', 'x.json'), '[1, 2]');
    // One file in the folder: its own error, as for the file itself.
    expect(() => importRunLogPath(store, join(dir, 'bad'))).toThrow(UnknownRunLogFormatError);
    writeFileSync(join(dir, 'bad', 'y.jsonl'), '{"nope": 1}');
    expect(() => importRunLogPath(store, join(dir, 'bad'))).toThrow(EmptyRunLogError);
    expect(() => importRunLogPath(store, join(dir, 'bad'))).toThrow(/its JSON is not objects/);
    expect(store.list({})).toEqual([]);
  });

  it('says what an unknown file looked like and which field was missing', () => {
    const cases: [string, RegExp][] = [
      [jsonl({ input_prompt: 'p' }), /SkyRL eval dump, but its rows have no 'output_response'/],
      [jsonl({ type: 'context', prompt: 'p' }), /rlm log, but its first entry's type is "context"/],
      [jsonl({ trajectory: 'oops' }), /DSPy RLM prediction, but its 'trajectory' is not a list/],
      [jsonl({ format: 'other.tool' }), /'format' is "other.tool"/],
      [jsonl([1, 2]), /its JSON is not objects/],
      ['', /no JSON line/],
    ];
    for (const [text, message] of cases) {
      const error = (() => {
        try {
          parseRunLog(text, { source: "'x.jsonl'" });
        } catch (caught) {
          return caught;
        }
        return null;
      })();
      expect(error).toBeInstanceOf(UnknownRunLogFormatError);
      expect((error as Error).message).toMatch(message);
      expect((error as Error).message).toContain('nano-rlm session folder');
    }
  });
});
