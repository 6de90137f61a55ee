// Comparing runs: agents matched by path, turns aligned with what differs, answers split.
import { describe, expect, it } from 'vitest';
import { compareRuns } from './run-compare.ts';
import { foldRun } from './run-tree.ts';
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

function run(
  childAnswer: string,
  lastCode: string,
  answer: string[],
  extraChild: boolean,
): RunEvent[] {
  const turn = (
    agentId: string,
    n: number,
    text: string,
    code: string,
    stdout: string,
  ): RunEvent[] => [
    { kind: 'turn.started', at: 1, agentId, turn: n, messages: [] },
    {
      kind: 'model.done',
      at: 2,
      agentId,
      turn: n,
      text,
      usage: { inputTokens: 10, outputTokens: 2 },
      costUsd: null,
      latencyMs: 1,
      finishReason: 'stop',
    },
    { kind: 'code.started', at: 3, agentId, turn: n, block: 0, code },
    {
      kind: 'repl.output',
      at: 4,
      agentId,
      turn: n,
      block: 0,
      stdout,
      stderr: '',
      error: null,
      durationMs: 1,
      variables: [],
    },
  ];
  return [
    {
      kind: 'run.started',
      at: 0,
      runId: 'r',
      question: 'Q',
      set: 's',
      papers: [],
      model: 'm',
      budgets,
      codeBlocks: 'last',
      prompts: 'long',
    },
    {
      kind: 'agent.spawned',
      at: 0,
      agentId: '0',
      parentId: null,
      depth: 0,
      prompt: 'Q',
      contextChars: 1,
    },
    ...turn('0', 0, 'ask', 'x = rlm_query("c")', 'ok'),
    {
      kind: 'agent.spawned',
      at: 5,
      agentId: '0.0',
      parentId: '0',
      depth: 1,
      prompt: 'c',
      contextChars: 1,
    },
    ...turn('0.0', 0, 'child', 'FINAL_VAR(y)', ''),
    { kind: 'final.answer', at: 6, agentId: '0.0', turn: 0, answer: childAnswer, via: 'FINAL_VAR' },
    ...(extraChild
      ? ([
          {
            kind: 'agent.spawned',
            at: 6,
            agentId: '0.1',
            parentId: '0',
            depth: 1,
            prompt: 'd',
            contextChars: 1,
          },
        ] as RunEvent[])
      : []),
    ...turn('0', 1, 'finish', lastCode, ''),
    { kind: 'final.answer', at: 7, agentId: '0', turn: 1, answer, via: 'FINAL_VAR' },
    {
      kind: 'run.finished',
      at: 10,
      status: 'done',
      answer,
      agents: 2,
      turns: 3,
      usage: { inputTokens: 30, outputTokens: 6 },
      costUsd: null,
      durationMs: 10,
      error: null,
    },
  ];
}

describe('compareRuns', () => {
  it('aligns agents and turns, finds the first difference and splits the answers', () => {
    const a = foldRun(run('A', 'FINAL_VAR(x)', ['one', 'two'], false));
    const b = foldRun(run('A', 'FINAL_VAR([x, "three"])', ['two', 'three'], true));
    const comparison = compareRuns(a, b);
    expect(comparison.agents.map((agent) => [agent.id, agent.in, agent.sameAnswer])).toEqual([
      ['0', 'both', false],
      ['0.0', 'both', true],
      ['0.1', 'b', false],
    ]);
    expect(
      comparison.agents[0]?.turns.map((turn) => [
        turn.sameResponse,
        turn.sameCode,
        turn.sameOutput,
      ]),
    ).toEqual([
      [true, true, true],
      [true, false, true],
    ]);
    expect(comparison.firstDifference).toEqual({ agentId: '0', turn: 1 });
    expect(comparison.answers).toEqual({ shared: ['two'], onlyA: ['one'], onlyB: ['three'] });
    expect(comparison.totals.a).toEqual({
      agents: 2,
      turns: 3,
      tokens: 36,
      costUsd: null,
      durationMs: 10,
    });
    expect(comparison.totals.b.agents).toBe(3);
    expect(compareRuns(a, a).firstDifference).toBeNull();
  });
});
