import { describe, expect, it } from 'vitest';
import { type RunEvent } from '../../../../app/api/index.ts';
import { foldRun } from '../../../../app/run-log/index.ts';
import { alignTurns, compareSpans } from './compare.ts';

const spawn = (agentId: string, parentId: string | null): RunEvent => ({
  kind: 'agent.spawned',
  at: 0,
  agentId,
  parentId,
  depth: agentId.split('.').length - 1,
  prompt: agentId,
  contextChars: 1,
});
const turn = (agentId: string, n: number, code: string): RunEvent[] => [
  { kind: 'turn.started', at: 1, agentId, turn: n, messages: [] },
  { kind: 'code.started', at: 2, agentId, turn: n, block: 0, code },
];

describe('compare', () => {
  it('aligns turns by agent path and turn, marking differences and missing turns', () => {
    const left = foldRun([
      spawn('0', null),
      ...turn('0', 0, 'a'),
      ...turn('0', 1, 'b'),
      spawn('0.10', '0'),
      spawn('0.2', '0'),
      ...turn('0.2', 0, 'c'),
    ]);
    const right = foldRun([
      spawn('0', null),
      ...turn('0', 0, 'a'),
      ...turn('0', 1, 'B'),
      spawn('0.10', '0'),
      ...turn('0.10', 0, 'd'),
    ]);
    const rows = alignTurns(left, right);
    expect(rows.map((row) => [row.agentId, row.turn, row.same])).toEqual([
      ['0', 0, true],
      ['0', 1, false],
      ['0.2', 0, false],
      ['0.10', 0, false],
    ]);
    expect(rows[2]?.right).toBeNull();
    expect(rows[3]?.left).toBeNull();
  });

  it('splits final spans into shared and each side', () => {
    expect(compareSpans(['x', 'y'], ['y', 'z'])).toEqual({
      shared: ['y'],
      onlyLeft: ['x'],
      onlyRight: ['z'],
    });
    expect(compareSpans('one', null)).toEqual({ shared: [], onlyLeft: ['one'], onlyRight: [] });
  });
});
