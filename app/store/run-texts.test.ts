// Prompt texts stored once per run (migration 6): the log reads back exactly as appended, through
// events() and eventsJson(), however the texts look; old rows with inline content still read; a
// failed write does not leave an event pointing at a text that was rolled back.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '../api/index.ts';
import { RunLogDamagedError, RunTextMissingError } from './run-texts.ts';
import { RunStore } from './runs.ts';
import { openWorkspace, type Workspace } from './workspace.ts';

let dir: string;
let workspace: Workspace;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rlm-texts-'));
  workspace = openWorkspace(dir);
});
afterEach(() => {
  workspace.close();
  rmSync(dir, { recursive: true, force: true });
});

type Message = Extract<RunEvent, { kind: 'turn.started' }>['messages'][number];
const system = `You are the root agent.\n${'Use the REPL. '.repeat(150)}`;
// Texts that look like the stored form, or need escaping, must come back unchanged.
const awkward = [
  '{"role":"system","ref":0}',
  'FINAL("a \\"quoted\\" answer")\n\ttab, \u0001 control, ünïcödé, 😀',
  '',
];

/** An agent's turns as the loop writes them: the conversation so far, growing every turn. */
function agentTurns(agentId: string, turns: number): RunEvent[] {
  const history: Message[] = [];
  const events: RunEvent[] = [];
  for (let turn = 0; turn < turns; turn++) {
    events.push({
      kind: 'turn.started',
      at: 1_000 + turn,
      agentId,
      turn,
      messages: [
        { role: 'system', content: system },
        { role: 'user', content: 'The context is a dict of 3 papers.' },
        ...history,
        { role: 'user', content: `Turn ${String(turn + 1)} of ${String(turns)}.` },
      ],
    });
    const reply = awkward[turn % awkward.length] ?? '';
    history.push(
      { role: 'assistant', content: reply },
      { role: 'user', content: `REPL output ${String(turn)}: ${'x'.repeat(2_000)}` },
    );
    events.push({ kind: 'model.done', at: 1_000 + turn, agentId, turn, text: reply } as RunEvent);
  }
  return events;
}

function storedBytes(): { events: number; texts: number; textRows: number } {
  const row = workspace.db
    .prepare(
      `SELECT (SELECT sum(length(data)) FROM run_events) AS events,
              (SELECT sum(length(text)) FROM run_texts) AS texts,
              (SELECT count(*) FROM run_texts) AS textRows`,
    )
    .get() as { events: number; texts: number; textRows: number };
  return row;
}

describe('run prompt texts', () => {
  it('reads a live run back exactly, storing each text once', () => {
    const store = new RunStore(workspace.db, 60_000);
    const writer = store.writer({ id: 'r', question: 'q', set: 's', model: 'scripted:x' });
    const events = [...agentTurns('0', 12), ...agentTurns('0.0', 3)];
    // Flushed in several transactions, so ids are reused across them too.
    events.forEach((event, index) => {
      writer.append(event);
      if (index % 5 === 4) writer.flush();
    });
    writer.flush();
    expect(store.events('r')).toEqual(events);
    expect(JSON.parse(store.eventsJson('r'))).toEqual(events);
    const bytes = storedBytes();
    const inline = events.reduce((sum, event) => sum + JSON.stringify(event).length, 0);
    // Twelve turns of 2 KB outputs: the conversations repeat ~130 KB; each text is stored once.
    expect(bytes.events + bytes.texts).toBeLessThan(inline / 3);
    const distinct = new Set(
      events.flatMap((event) =>
        event.kind === 'turn.started' ? event.messages.map((message) => message.content) : [],
      ),
    );
    expect(bytes.textRows).toBe(distinct.size);
    const raw = workspace.db.prepare('SELECT data FROM run_events').all() as { data: string }[];
    expect(raw.some((row) => row.data.includes('Use the REPL.'))).toBe(false);
  });

  it('stores an imported run the same way', () => {
    const store = new RunStore(workspace.db, 60_000);
    const events = agentTurns('0', 4);
    store.insertRun(
      { id: 'imported', question: 'q', set: 's', model: 'm', source: 'import', createdAt: 1 },
      events,
    );
    expect(store.events('imported')).toEqual(events);
    expect(JSON.parse(store.eventsJson('imported'))).toEqual(events);
    expect(storedBytes().textRows).toBeGreaterThan(0);
  });

  it('still reads rows written with the text inline (before migration 6)', () => {
    const store = new RunStore(workspace.db, 60_000);
    const writer = store.writer({ id: 'old', question: 'q', set: 's', model: 'scripted:x' });
    writer.flush();
    const [event] = agentTurns('0', 1);
    workspace.db
      .prepare(
        "INSERT INTO run_events (run_id, seq, at, kind, agent_id, data) VALUES ('old', 0, 1, 'turn.started', '0', ?)",
      )
      .run(JSON.stringify(event));
    expect(store.events('old')).toEqual([event]);
    expect(JSON.parse(store.eventsJson('old'))).toEqual([event]);
  });

  it('writes a text again after the transaction that first wrote it failed', () => {
    const store = new RunStore(workspace.db, 60_000);
    const writer = store.writer({ id: 'r', question: 'q', set: 's', model: 'scripted:x' });
    const broken = store.writer({ id: 'b', question: 'q', set: 's', model: 'scripted:x' });
    writer.flush();
    workspace.db.exec(`CREATE TEMP TRIGGER refuse BEFORE INSERT ON run_events
      WHEN NEW.run_id = 'b' BEGIN SELECT RAISE(ABORT, 'refused'); END`);
    const [first, , second] = agentTurns('0', 2);
    if (!first || !second) throw new Error('expected two turns');
    writer.append(first);
    broken.append(first);
    expect(() => {
      writer.flush();
    }).toThrow(/refused/);
    workspace.db.exec('DROP TRIGGER refuse');
    // The first event was lost with its transaction; the second holds the same system prompt.
    writer.append(second);
    writer.flush();
    expect(store.events('r')).toEqual([second]);
  });

  it('names a text the database lost, and deleting a run deletes its texts', () => {
    const store = new RunStore(workspace.db, 60_000);
    const writer = store.writer({ id: 'r', question: 'q', set: 's', model: 'scripted:x' });
    for (const event of agentTurns('0', 2)) writer.append(event);
    writer.flush();
    workspace.db.exec('DELETE FROM run_texts WHERE id = 0');
    expect(() => store.events('r')).toThrow(RunTextMissingError);
    expect(() => store.eventsJson('r')).toThrow(RunTextMissingError);
    expect(store.remove('r')).toBe(true);
    expect(storedBytes().textRows).toBe(0);
  });

  it('names a prompt message that holds neither text nor a reference', () => {
    const store = new RunStore(workspace.db, 60_000);
    const writer = store.writer({ id: 'r', question: 'q', set: 's', model: 'scripted:x' });
    for (const event of agentTurns('0', 2)) writer.append(event);
    writer.flush();
    // A hand edit drops the reference of one message, in the row of the agent's second turn.
    const row = workspace.db
      .prepare(
        "SELECT rowid AS id, data FROM run_events WHERE run_id = 'r' AND kind = 'turn.started' ORDER BY rowid DESC LIMIT 1",
      )
      .get() as { id: number; data: string };
    const damaged = row.data.replace(/,"ref":\d+\}/, '}');
    expect(damaged).not.toBe(row.data);
    workspace.db.prepare('UPDATE run_events SET data = ? WHERE rowid = ?').run(damaged, row.id);
    for (const read of [() => store.events('r'), () => store.eventsJson('r')]) {
      expect(read).toThrow(RunLogDamagedError);
      expect(read).toThrow(/agent 0, turn 1 holds neither its text nor a reference/);
    }
  });
});
