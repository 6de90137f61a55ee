import { describe, expect, it } from 'vitest';
import { type RunEvent } from '../../../../app/api/index.ts';
import { foldRun } from '../../../../app/run-log/index.ts';
import { agentOrder, navigate } from './tree-navigation.ts';

const spawn = (agentId: string, parentId: string | null): RunEvent => ({
  kind: 'agent.spawned',
  at: 0,
  agentId,
  parentId,
  depth: agentId.split('.').length - 1,
  prompt: `task ${agentId}`,
  contextChars: 1,
});
const turn = (agentId: string, n: number, code: string, stdout: string): RunEvent[] => [
  {
    kind: 'turn.started',
    at: 1,
    agentId,
    turn: n,
    messages: [{ role: 'user', content: `prompt ${agentId}/${String(n)}` }],
  },
  { kind: 'code.started', at: 2, agentId, turn: n, block: 0, code },
  {
    kind: 'repl.output',
    at: 3,
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
const view = foldRun([
  spawn('0', null),
  ...turn('0', 0, 'x = search(context, "needle")', 'found 3'),
  spawn('0.0', '0'),
  spawn('0.0.0', '0.0'),
  spawn('0.1', '0'),
  ...turn('0.1', 0, 'print(1)', 'Needle here'),
  ...turn('0.1', 1, 'print(2)', '2'),
  { kind: 'final.answer', at: 9, agentId: '0.1', turn: 1, answer: ['span'], via: 'FINAL' },
]);

describe('keyboard navigation', () => {
  const order = agentOrder(view);
  it('orders agents depth first', () => {
    expect(order).toEqual(['0', '0.0', '0.0.0', '0.1']);
  });

  it('moves through agents and turns, clamped at the ends', () => {
    let at = navigate(view, order, { agentId: undefined, turn: undefined }, 'nextAgent');
    expect(at).toEqual({ agentId: '0', turn: 0 });
    at = navigate(view, order, at, 'previousAgent');
    expect(at.agentId).toBe('0');
    for (let step = 0; step < 3; step++) at = navigate(view, order, at, 'nextAgent');
    expect(at).toEqual({ agentId: '0.1', turn: 1 });
    at = navigate(view, order, at, 'previousTurn');
    expect(at).toEqual({ agentId: '0.1', turn: 0 });
    at = navigate(view, order, at, 'previousTurn');
    expect(at.turn).toBe(0);
    at = navigate(view, order, at, 'nextTurn');
    at = navigate(view, order, at, 'nextTurn');
    expect(at.turn).toBe(1);
    expect(navigate(view, order, at, 'parent')).toEqual({ agentId: '0', turn: 0 });
  });
});
