// The synthetic run for the UI benchmark: its size, determinism, valid events in time order, and
// the live stream at a given rate, written like a live run.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RunEvent, type RunEvent as RunEventType } from '../../api/index.ts';
import { foldRun } from '../../run-log/index.ts';
import { openWorkspace, RunStore, type Workspace } from '../index.ts';
import {
  storeSyntheticRun,
  streamSyntheticRun,
  syntheticRunEvents,
  SyntheticRunSizeError,
} from './synthetic-run.ts';

let dir: string;
let workspace: Workspace;
let store: RunStore;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rlm-synthetic-'));
  workspace = openWorkspace(dir);
  store = new RunStore(workspace.db, 5);
});
afterEach(() => {
  workspace.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('synthetic runs', () => {
  it('has 512 agents and 5,000 turns by default, valid events in time order, the same for a seed', () => {
    const events = syntheticRunEvents();
    const view = foldRun(events);
    expect(view.agents.size).toBe(512);
    expect([...view.agents.values()].reduce((sum, agent) => sum + agent.turns.length, 0)).toBe(
      5000,
    );
    const states = new Set([...view.agents.values()].map((agent) => agent.state));
    expect(states).toEqual(new Set(['done', 'failed']));
    expect(view.status).toBe('done');
    for (const event of events) RunEvent.parse(event);
    const times = events.map((event) => event.at);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(JSON.stringify(syntheticRunEvents({ agents: 20, turns: 50, seed: 3 }))).toBe(
      JSON.stringify(syntheticRunEvents({ agents: 20, turns: 50, seed: 3 })),
    );
    expect(() => syntheticRunEvents({ agents: 10, turns: 5 })).toThrow(SyntheticRunSizeError);
  });

  it('stores as an ordinary run with source synthetic', () => {
    const { runId, events } = storeSyntheticRun(store, { agents: 512, turns: 5000 });
    expect(store.get(runId)).toMatchObject({
      source: 'synthetic',
      agents: 512,
      turns: 5000,
      status: 'done',
    });
    expect(store.events(runId)).toHaveLength(events);
  });

  it('streams like a live run at the given rate', async () => {
    const seen: RunEventType[] = [];
    const started = performance.now();
    const live = streamSyntheticRun(store, (_id, event) => seen.push(event), {
      agents: 5,
      turns: 12,
      eventsPerSecond: 400,
    });
    await live.finished;
    const seconds = (performance.now() - started) / 1000;
    expect(seen).toHaveLength(live.events);
    expect(seconds).toBeGreaterThan((live.events - 1) / 400 - 0.05);
    expect(store.get(live.runId)).toMatchObject({ status: 'done', agents: 5, turns: 12 });
    expect(store.events(live.runId)).toEqual(seen);
  });

  it('ends canceled when its signal aborts', async () => {
    const controller = new AbortController();
    const live = streamSyntheticRun(store, () => undefined, {
      agents: 50,
      turns: 500,
      eventsPerSecond: 100,
      signal: controller.signal,
    });
    setTimeout(() => {
      controller.abort();
    }, 100);
    await live.finished;
    expect(store.get(live.runId)).toMatchObject({ status: 'canceled' });
  });
});
