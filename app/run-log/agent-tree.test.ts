// The derived tree the Run view draws, tree search and subtree copies, over a hand-built log.
import { describe, expect, it } from 'vitest';
import { agentEdge, agentSummary, agentTree } from './agent-tree.ts';
import { foldRun } from './run-tree.ts';
import type { RunEvent } from '../api/index.ts';
import { subtreeJson, subtreeMarkdown, UnknownAgentError } from './subtree-export.ts';
import { searchTree } from './tree-search.ts';

const budgets = {
  maxTurns: 10,
  maxDepth: 2,
  maxChildrenPerCall: 8,
  maxAgents: 64,
  maxTokens: 1000,
  wallTimeMs: 1000,
  maxInFlightCalls: 4,
};
const spawn = (at: number, agentId: string, parentId: string | null, prompt: string): RunEvent => ({
  kind: 'agent.spawned',
  at,
  agentId,
  parentId,
  depth: agentId.split('.').length - 1,
  prompt,
  contextChars: 5,
});
const turn = (
  at: number,
  agentId: string,
  n: number,
  response: string,
  tokens: number,
): RunEvent[] => [
  {
    kind: 'turn.started',
    at,
    agentId,
    turn: n,
    messages: [{ role: 'user', content: `turn ${n} of ${agentId}` }],
  },
  {
    kind: 'model.done',
    at: at + 1,
    agentId,
    turn: n,
    text: response,
    usage: { inputTokens: tokens, outputTokens: 1 },
    costUsd: 0.5,
    latencyMs: 1,
    finishReason: 'stop',
  },
];
const log: RunEvent[] = [
  {
    kind: 'run.started',
    at: 100,
    runId: 'r',
    question: 'Q?',
    set: 's',
    papers: [],
    model: 'm',
    budgets,
    codeBlocks: 'last',
    prompts: 'long',
  },
  spawn(100, '0', null, 'Q?'),
  ...turn(101, '0', 0, '```repl\nx = rlm_query_batched(["find the needle", "b"])\n```', 10),
  {
    kind: 'code.started',
    at: 103,
    agentId: '0',
    turn: 0,
    block: 0,
    code: 'x = rlm_query_batched(["find the needle", "b"])',
  },
  {
    kind: 'child.call',
    at: 104,
    agentId: '0',
    turn: 0,
    childId: '0.0',
    call: 'rlm',
    prompt: 'find the needle in the long haystack of text',
  },
  spawn(104, '0.0', '0', 'find the needle in the long haystack of text'),
  { kind: 'child.call', at: 104, agentId: '0', turn: 0, childId: '0.1', call: 'rlm', prompt: 'b' },
  spawn(104, '0.1', '0', 'b'),
  ...turn(105, '0.0', 0, 'FINAL(a needle)', 20),
  {
    kind: 'final.answer',
    at: 110,
    agentId: '0.0',
    turn: 0,
    answer: 'a needle, found where the haystack ends',
    via: 'FINAL',
  },
  {
    kind: 'child.returned',
    at: 110,
    agentId: '0',
    childId: '0.0',
    answer: 'a needle',
    error: null,
  },
  ...turn(106, '0.1', 0, '```repl\nprint("NEEDLE")\n```', 5),
  { kind: 'code.started', at: 108, agentId: '0.1', turn: 0, block: 0, code: 'print("NEEDLE")' },
  {
    kind: 'repl.output',
    at: 109,
    agentId: '0.1',
    turn: 0,
    block: 0,
    stdout: 'NEEDLE\n',
    stderr: '',
    error: null,
    durationMs: 1,
    variables: [],
  },
];

describe('agentTree', () => {
  it('gives each agent its state, turns, tokens, cost, time, answer start and edge label', () => {
    const tree = agentTree(foldRun(log), { now: 200, previewChars: 12, labelChars: 20 });
    expect(tree.nodes.map((node) => [node.id, node.state, node.turns, node.tokens])).toEqual([
      ['0', 'waiting', 1, 11],
      ['0.0', 'done', 1, 21],
      ['0.1', 'running', 1, 6],
    ]);
    expect(tree.nodes[1]).toMatchObject({
      answerPreview: 'a needle, f…',
      durationMs: 6,
      costUsd: 0.5,
    });
    expect(tree.nodes[2]).toMatchObject({ answerPreview: null, durationMs: 96 });
    expect(tree.nodes[0]).toMatchObject({
      durationMs: 100,
      pendingChildren: 1,
      children: ['0.0', '0.1'],
    });
    const view = foldRun(log);
    expect(agentSummary(view, '0.1', { now: 200, previewChars: 12 })).toEqual(tree.nodes[2]);
    expect(agentSummary(view, '0.9')).toBeNull();
    expect(agentEdge(view, '0')).toBeNull();
    expect(tree.edges).toEqual([
      { id: '0->0.0', source: '0', target: '0.0', label: 'find the needle in…' },
      { id: '0->0.1', source: '0', target: '0.1', label: 'b' },
    ]);
  });
});

describe('searchTree', () => {
  it('finds text in prompts, code, output and answers, case-insensitively, in tree order', () => {
    const hits = searchTree(foldRun(log), 'needle');
    expect(hits.map((hit) => [hit.agentId, hit.turn, hit.field, hit.block])).toEqual([
      ['0', 0, 'response', null],
      ['0', 0, 'code', 0],
      ['0', 0, 'child', null],
      ['0.0', null, 'prompt', null],
      ['0.0', 0, 'response', null],
      ['0.0', null, 'answer', null],
      ['0.1', 0, 'response', null],
      ['0.1', 0, 'code', 0],
      ['0.1', 0, 'stdout', 0],
    ]);
    expect(hits[8]?.snippet).toBe('NEEDLE ');
    expect(searchTree(foldRun(log), 'needle', { limit: 2 })).toHaveLength(2);
    expect(searchTree(foldRun(log), '   ')).toEqual([]);
  });
});

describe('subtree copies', () => {
  it('nests an agent and its descendants as JSON and as Markdown', () => {
    const view = foldRun(log);
    const json = subtreeJson(view, '0');
    expect(json.children.map((child) => child.id)).toEqual(['0.0', '0.1']);
    expect(json.children[0]?.answer).toBe('a needle, found where the haystack ends');
    expect(JSON.parse(JSON.stringify(json))).toEqual(json);
    const markdown = subtreeMarkdown(view, '0.1');
    expect(markdown).toContain('### Agent 0.1 (running)');
    expect(markdown).toContain('```python\nprint("NEEDLE")\n```');
    expect(markdown).toContain('```text\nNEEDLE\n```');
    expect(subtreeMarkdown(view, '0')).toMatch(
      /## Agent 0 [\s\S]*### Agent 0\.0[\s\S]*### Agent 0\.1/,
    );
    expect(() => subtreeJson(view, '0.7')).toThrow(UnknownAgentError);
  });
});
