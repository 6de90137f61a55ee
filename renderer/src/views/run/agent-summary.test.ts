import { describe, expect, it } from 'vitest';
import type { AgentNode } from '../../../../app/run-log/index.ts';
import {
  formatClock,
  formatCost,
  formatDuration,
  formatTokens,
  summarizeAgent,
} from './agent-summary.ts';

const agent = (patch: Partial<AgentNode>): AgentNode => ({
  id: '0.1',
  parentId: '0',
  depth: 1,
  prompt: 'sub',
  state: 'running',
  turns: [],
  children: [],
  answer: null,
  error: null,
  inputTokens: 1200,
  outputTokens: 34,
  costUsd: 0.0123,
  startedAt: 1000,
  finishedAt: null,
  pendingChildren: 0,
  ...patch,
});

describe('summarizeAgent', () => {
  it('counts a running agent up to now, with no answer yet', () => {
    expect(summarizeAgent(agent({}), 4000)).toMatchObject({
      state: 'running',
      tokens: 1234,
      elapsedMs: 3000,
      answerStart: '',
    });
  });

  it('shows the start of a done answer and a failure', () => {
    const long = 'x'.repeat(200);
    const done = summarizeAgent(agent({ state: 'done', answer: [long], finishedAt: 1500 }), 9e9);
    expect(done.elapsedMs).toBe(500);
    expect(done.answerStart).toBe(`${JSON.stringify([long]).slice(0, 79)}…`);
    const failed = summarizeAgent(
      agent({ state: 'failed', error: { name: 'TurnBudgetError', message: 'out of turns' } }),
      2000,
    );
    expect(failed.answerStart).toBe('TurnBudgetError: out of turns');
  });
});

describe('formatting', () => {
  it('writes tokens, cost and durations compactly', () => {
    expect(formatTokens(999)).toBe('999');
    expect(formatTokens(1234)).toBe('1.2k');
    expect(formatTokens(2_500_000)).toBe('2.5M');
    expect(formatCost(null)).toBe('—');
    expect(formatCost(0.0012)).toBe('$0.0012');
    expect(formatCost(1.5)).toBe('$1.50');
    expect(formatDuration(250)).toBe('250 ms');
    expect(formatDuration(2500)).toBe('2.5 s');
    expect(formatDuration(125_000)).toBe('2 min 5 s');
    expect(formatClock(0)).toBe('0 s');
    expect(formatClock(42_900)).toBe('42 s');
    expect(formatClock(185_000)).toBe('3 min 5 s');
  });
});
