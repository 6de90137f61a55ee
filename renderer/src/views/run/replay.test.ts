import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../../../app/api/index.ts';
import { ReplayPlayer, type ReplayTimers } from './replay.ts';
import { RunStore } from './run-store.ts';

const budgets = {
  maxTurns: 3,
  maxDepth: 1,
  maxChildrenPerCall: 2,
  maxAgents: 4,
  maxTokens: 100,
  wallTimeMs: 100,
  maxInFlightCalls: 2,
};
const log: RunEvent[] = [
  {
    kind: 'run.started',
    at: 0,
    runId: 'r',
    question: 'Q',
    set: 's',
    papers: [],
    model: 'm',
    budgets,
    codeBlocks: 'first',
    prompts: 'long',
  },
  {
    kind: 'agent.spawned',
    at: 10,
    agentId: '0',
    parentId: null,
    depth: 0,
    prompt: 'Q',
    contextChars: 1,
  },
  { kind: 'turn.started', at: 20, agentId: '0', turn: 0, messages: [] },
  { kind: 'model.delta', at: 30, agentId: '0', turn: 0, text: 'a' },
  { kind: 'turn.started', at: 5000, agentId: '0', turn: 1, messages: [] },
  { kind: 'final.answer', at: 5010, agentId: '0', turn: 1, answer: 'done', via: 'FINAL' },
];

/** Timers driven by hand: `run()` fires the pending one and reports its delay. */
function manualTimers() {
  let pending: { run: () => void; ms: number } | null = null;
  const timers: ReplayTimers = {
    setTimeout: (run, ms) => {
      pending = { run, ms };
      return 1;
    },
    clearTimeout: () => {
      pending = null;
    },
  };
  return {
    timers,
    fire(): number | null {
      const current = pending;
      pending = null;
      current?.run();
      return current?.ms ?? null;
    },
  };
}

const makeStore = () => new RunStore(() => undefined);

describe('ReplayPlayer', () => {
  it('seeks forward and back through the same store as a live run', () => {
    const store = makeStore();
    const player = new ReplayPlayer(log, store, manualTimers().timers);
    player.seek(4);
    expect(store.getSnapshot().view.agents.get('0')?.turns[0]?.response).toBe('a');
    player.seek(2);
    expect(store.getSnapshot().view.agents.get('0')?.turns).toEqual([]);
    expect(store.getSnapshot().applied).toBe(2);
    player.step(1);
    expect(player.getState().cursor).toBe(3);
  });

  it('steps turn by turn', () => {
    const store = makeStore();
    const player = new ReplayPlayer(log, store, manualTimers().timers);
    player.stepTurn(1);
    expect(player.getState().cursor).toBe(3);
    player.stepTurn(1);
    expect(player.getState().cursor).toBe(5);
    player.stepTurn(-1);
    expect(player.getState().cursor).toBe(3);
  });

  it('plays at speed with long gaps capped, and stops at the end', () => {
    const store = makeStore();
    const clock = manualTimers();
    const player = new ReplayPlayer(log, store, clock.timers);
    player.play(4);
    const delays: number[] = [];
    for (let fired = clock.fire(); fired !== null; fired = clock.fire()) delays.push(fired);
    expect(delays[0]).toBe(0);
    expect(Math.max(...delays)).toBe(1500 / 4);
    expect(player.getState()).toMatchObject({ cursor: log.length, playing: false });
    expect(store.getSnapshot().view.agents.get('0')?.state).toBe('done');
  });
});
