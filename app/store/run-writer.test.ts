// When a run's events reach the database: ordinary events within flushMs, a run's end at the end
// of the event-loop turn it happened in (runs ending together share one transaction); under a hold
// (holdWritesWhile), ordinary events wait while any holder is busy, up to the deadline.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '../api/index.ts';
import { RunStore } from './runs.ts';
import { databaseFileName, openWorkspace, type Workspace } from './workspace.ts';

let dir: string;
let workspace: Workspace;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rlm-writer-'));
  workspace = openWorkspace(dir);
});
afterEach(() => {
  workspace.close();
  rmSync(dir, { recursive: true, force: true });
});

const spawned = (at: number): RunEvent => ({
  kind: 'agent.spawned',
  at,
  agentId: '0',
  parentId: null,
  depth: 0,
  prompt: 'q',
  contextChars: 0,
});

const finished = (at: number): RunEvent => ({
  kind: 'run.finished',
  at,
  status: 'done',
  answer: 'yes',
  agents: 1,
  turns: 1,
  usage: { inputTokens: 1, outputTokens: 1 },
  costUsd: null,
  durationMs: 1,
  error: null,
});

/** What another connection sees: only committed rows. */
function committed(): { runs: number; done: number; events: number } {
  const reader = new DatabaseSync(join(dir, databaseFileName), { readOnly: true });
  try {
    const count = (sql: string) => (reader.prepare(sql).get() as { n: number }).n;
    return {
      runs: count('SELECT count(*) AS n FROM runs'),
      done: count("SELECT count(*) AS n FROM runs WHERE status = 'done'"),
      events: count('SELECT count(*) AS n FROM run_events'),
    };
  } finally {
    reader.close();
  }
}

describe('RunWriter', () => {
  it('writes runs that end in the same turn together, at the end of that turn', async () => {
    const store = new RunStore(workspace.db, 60_000);
    const writers = ['a', 'b', 'c'].map((id) =>
      store.writer({ id, question: 'q', set: 's', model: 'scripted:x' }),
    );
    for (const writer of writers) writer.append(finished(Date.now()));
    expect(committed()).toEqual({ runs: 0, done: 0, events: 0 });
    const written = Promise.all(writers.map((writer) => writer.flushed()));
    await nextTurn();
    expect(committed()).toEqual({ runs: 3, done: 3, events: 3 });
    await written;
  });

  it('under a hold, waits while the holder is busy, then writes once it is quiet', async () => {
    const store = new RunStore(workspace.db, 60_000);
    let busy = true;
    store.holdWritesWhile(() => busy, 60_000, 10);
    const writer = store.writer({ id: 'a', question: 'q', set: 's', model: 'scripted:x' });
    writer.append(spawned(Date.now()));
    await sleep(150);
    expect(committed()).toEqual({ runs: 0, done: 0, events: 0 });
    busy = false;
    await expect.poll(committed, { timeout: 5_000, interval: 20 }).toEqual({
      runs: 1,
      done: 0,
      events: 1,
    });
  });

  it('under a hold, writes by the deadline however long the holder stays busy', async () => {
    const store = new RunStore(workspace.db, 60_000);
    store.holdWritesWhile(() => true, 1_000, 10);
    const writer = store.writer({ id: 'a', question: 'q', set: 's', model: 'scripted:x' });
    const appended = performance.now();
    writer.append(spawned(Date.now()));
    await sleep(150);
    expect(committed().events).toBe(0);
    await expect.poll(() => committed().events, { timeout: 5_000, interval: 20 }).toBe(1);
    expect(performance.now() - appended).toBeGreaterThanOrEqual(1_000);
  });

  it('holds while any of several holders is busy', async () => {
    const store = new RunStore(workspace.db, 60_000);
    let busy = true;
    store.holdWritesWhile(() => busy, 60_000, 10);
    store.holdWritesWhile(() => false, 60_000, 10);
    const writer = store.writer({ id: 'a', question: 'q', set: 's', model: 'scripted:x' });
    writer.append(spawned(Date.now()));
    await sleep(150);
    expect(committed().events).toBe(0);
    busy = false;
    await expect.poll(() => committed().events, { timeout: 5_000, interval: 20 }).toBe(1);
  });

  it('keeps the other holders when one is released, and writes as before once all are', async () => {
    const store = new RunStore(workspace.db, 60_000);
    const releaseFirst = store.holdWritesWhile(() => false, 60_000, 10);
    const releaseSecond = store.holdWritesWhile(() => true, 60_000, 10);
    const writer = store.writer({ id: 'a', question: 'q', set: 's', model: 'scripted:x' });
    writer.append(spawned(Date.now()));
    releaseFirst();
    await sleep(150);
    expect(committed().events).toBe(0); // the second still holds
    releaseSecond();
    // The wait that was under way ends with the last holder: no 60 s flush delay to wait out.
    await expect.poll(() => committed().events, { timeout: 5_000, interval: 20 }).toBe(1);
    writer.append(spawned(Date.now()));
    await sleep(150);
    expect(committed().events).toBe(1); // no hold: ordinary events wait flushMs (60 s) again
    await writer.flushed();
    expect(committed().events).toBe(2);
  });

  it("under a hold, still writes a run's end at the end of its turn", async () => {
    const store = new RunStore(workspace.db, 60_000);
    store.holdWritesWhile(() => true, 60_000, 10);
    const writer = store.writer({ id: 'a', question: 'q', set: 's', model: 'scripted:x' });
    writer.append(spawned(Date.now()));
    writer.append(finished(Date.now()));
    await nextTurn();
    expect(committed()).toEqual({ runs: 1, done: 1, events: 2 });
  });
});
