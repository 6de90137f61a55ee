// The tree fold: event by event equals the whole log, states follow children, llm_query tokens count
// for the agent that asked.
import { describe, expect, it } from 'vitest';
import { applyRunEvent, emptyRunView, foldRun } from './run-tree.ts';
import type { RunEvent } from '../api/index.ts';

const budgets = {
  maxTurns: 10,
  maxDepth: 2,
  maxChildrenPerCall: 8,
  maxAgents: 64,
  maxTokens: 1000,
  wallTimeMs: 1000,
  maxInFlightCalls: 4,
};
const usage = (n: number) => ({ inputTokens: n, outputTokens: 1 });

const log: RunEvent[] = [
  {
    kind: 'run.started',
    at: 1,
    runId: 'r',
    question: 'Q?',
    set: 's',
    papers: ['p'],
    model: 'm',
    budgets,
    codeBlocks: 'first',
    prompts: 'v1',
  },
  {
    kind: 'agent.spawned',
    at: 2,
    agentId: '0',
    parentId: null,
    depth: 0,
    prompt: 'Q?',
    contextChars: 10,
  },
  {
    kind: 'turn.started',
    at: 3,
    agentId: '0',
    turn: 0,
    messages: [{ role: 'user', content: 'go' }],
  },
  { kind: 'model.delta', at: 4, agentId: '0', turn: 0, text: 'par' },
  {
    kind: 'model.done',
    at: 5,
    agentId: '0',
    turn: 0,
    text: 'partial',
    usage: usage(10),
    costUsd: 0.5,
    latencyMs: 3,
    finishReason: 'stop',
  },
  { kind: 'code.started', at: 6, agentId: '0', turn: 0, block: 0, code: 'rlm_query("sub")' },
  { kind: 'child.call', at: 7, agentId: '0', turn: 0, childId: '0.0', call: 'rlm', prompt: 'sub' },
  {
    kind: 'agent.spawned',
    at: 7,
    agentId: '0.0',
    parentId: '0',
    depth: 1,
    prompt: 'sub',
    contextChars: 3,
  },
  {
    kind: 'model.done',
    at: 8,
    agentId: '0:llm',
    turn: 0,
    text: 'x',
    usage: usage(5),
    costUsd: null,
    latencyMs: 1,
    finishReason: 'stop',
  },
  { kind: 'agent.failed', at: 9, agentId: '0.0', error: { name: 'E', message: 'boom' } },
  {
    kind: 'child.returned',
    at: 9,
    agentId: '0',
    childId: '0.0',
    answer: null,
    error: { name: 'E', message: 'boom' },
  },
  {
    kind: 'repl.output',
    at: 10,
    agentId: '0',
    turn: 0,
    block: 0,
    stdout: 'out',
    stderr: '',
    error: null,
    durationMs: 4,
    variables: [{ name: 'a', type: 'int', repr: '1' }],
  },
  { kind: 'final.answer', at: 11, agentId: '0', turn: 0, answer: ['span'], via: 'FINAL' },
  {
    kind: 'run.finished',
    at: 12,
    status: 'done',
    answer: ['span'],
    agents: 2,
    turns: 1,
    usage: usage(15),
    costUsd: 0.5,
    durationMs: 11,
    error: null,
  },
];

describe('run tree fold', () => {
  it('gives the same view event by event as over the whole log', () => {
    const live = emptyRunView();
    for (const event of log) applyRunEvent(live, event);
    expect(live).toEqual(foldRun(log));
  });

  it('tracks states, children, turns, tokens and the answer', () => {
    const partial = foldRun(log.slice(0, 8));
    expect(partial.agents.get('0')?.state).toBe('waiting');
    expect(partial.agents.get('0')?.children).toEqual(['0.0']);
    expect(partial.agents.get('0.0')?.state).toBe('running');

    const view = foldRun(log);
    const root = view.agents.get('0');
    expect(root?.state).toBe('done');
    expect(root?.answer).toEqual(['span']);
    expect(root?.inputTokens).toBe(15);
    expect(root?.costUsd).toBe(0.5);
    expect(root?.turns[0]?.response).toBe('partial');
    expect(root?.turns[0]?.code[0]?.variables[0]?.name).toBe('a');
    expect(view.agents.get('0.0')?.state).toBe('failed');
    expect(view.agents.get('0.0')?.error?.message).toBe('boom');
    expect(view.status).toBe('done');
    expect(view.inputTokens).toBe(15);
  });
});
