import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../app/api/index.ts';
import { rolloutTree, sftRejection, stepSamples, TrajectoryError } from './trajectory.ts';

const spawned = (agentId: string, parentId: string | null): RunEvent => ({
  kind: 'agent.spawned',
  at: 0,
  agentId,
  parentId,
  depth: agentId.split('.').length - 1,
  prompt: `task of ${agentId}`,
  contextChars: 100,
});
const turn = (agentId: string, n: number, outputTokens: number): RunEvent[] => [
  {
    kind: 'turn.started',
    at: 0,
    agentId,
    turn: n,
    messages: [
      { role: 'system', content: 'sys' },
      { role: 'user', content: `${agentId} turn ${n}` },
    ],
  },
  {
    kind: 'model.done',
    at: 0,
    agentId,
    turn: n,
    text: `response ${agentId}/${n}`,
    usage: { inputTokens: 50, outputTokens },
    costUsd: null,
    latencyMs: 1,
    finishReason: 'stop',
  },
];
const output = (
  agentId: string,
  n: number,
  error: { type: string; message: string } | null,
): RunEvent => ({
  kind: 'repl.output',
  at: 0,
  agentId,
  turn: n,
  block: 0,
  stdout: '',
  stderr: '',
  error,
  durationMs: 1,
  variables: [],
});
const finished = (status: 'done' | 'failed'): RunEvent => ({
  kind: 'run.finished',
  at: 0,
  status,
  answer: [],
  agents: 3,
  turns: 4,
  usage: { inputTokens: 0, outputTokens: 0 },
  costUsd: null,
  durationMs: 1,
  error: null,
});

const log: RunEvent[] = [
  spawned('0', null),
  ...turn('0', 0, 12),
  output('0', 0, null),
  spawned('0.0', '0'),
  spawned('0.1', '0'),
  ...turn('0.1', 0, 7),
  ...turn('0.0', 0, 5),
  // A plain llm_query call: a model call that is not an agent turn.
  { ...(turn('0.1', 0, 3)[1] as RunEvent & { kind: 'model.done' }), agentId: '0.1:llm' },
  ...turn('0.0', 1, 9),
  ...turn('0', 1, 20),
  finished('done'),
];

describe('stepSamples', () => {
  it('pairs each agent turn with the exact prompt it was sent, skipping llm_query calls', () => {
    const samples = stepSamples(log);
    expect(samples.map((s) => `${s.agentId}/${s.turn}`)).toEqual([
      '0/0',
      '0.1/0',
      '0.0/0',
      '0.0/1',
      '0/1',
    ]);
    expect(samples[2]?.messages[1]?.content).toBe('0.0 turn 0');
    expect(samples[2]?.response).toBe('response 0.0/0');
    expect(samples.every((s) => s.ended)).toBe(true);
  });

  it('marks a reply cut at the token limit as not ended (its end token is no action)', () => {
    const cut = log.map((event) =>
      event.kind === 'model.done' && event.agentId === '0.1'
        ? { ...event, finishReason: 'length' }
        : event,
    );
    const samples = stepSamples(cut);
    expect(samples.filter((s) => !s.ended).map((s) => `${s.agentId}/${s.turn}`)).toEqual(['0.1/0']);
  });
});

describe('rolloutTree', () => {
  it('rebuilds the agent tree with the action tokens of each turn', () => {
    expect(rolloutTree(log)).toEqual({
      agentId: '0',
      turnTokens: [12, 20],
      children: [
        { agentId: '0.0', turnTokens: [5, 9], children: [] },
        { agentId: '0.1', turnTokens: [7], children: [] },
      ],
    });
    expect(rolloutTree(log, (s) => s.response.length).turnTokens).toEqual([12, 12]);
  });

  it('names a log without a root or with an orphan', () => {
    expect(() => rolloutTree([])).toThrow(TrajectoryError);
    expect(() => rolloutTree([spawned('0', null), spawned('0.3.1', '0.3')])).toThrow(
      /never spawned/,
    );
  });
});

describe('sftRejection', () => {
  it('accepts a finished run without REPL errors and with span F1 above 0', () => {
    expect(sftRejection(log, 0.4)).toBeNull();
  });

  it('rejects REPL errors, zero F1 and unfinished runs, saying why', () => {
    const withError = [
      ...log.slice(0, -1),
      output('0.0', 1, { type: 'NameError', message: 'x' }),
      finished('done'),
    ];
    expect(sftRejection(withError, 1)).toMatch(/REPL error in agent 0.0 turn 1: NameError/);
    expect(sftRejection(log, 0)).toMatch(/span F1 is 0/);
    expect(sftRejection(log.slice(0, -1), 1)).toMatch(/did not finish/);
    expect(sftRejection([...log.slice(0, -1), finished('failed')], 1)).toMatch(/failed/);
  });
});
