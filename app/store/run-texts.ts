// The texts of a run's prompts, stored once each (migration 6). A turn.started event holds the
// agent's whole conversation so far (system prompt, opening, every earlier turn): stored verbatim,
// an agent's log grows with the square of its turns, and bench:rlm's 512 agents wrote their ~2 KB
// system prompts 1,536 times (3.7 of the log's 5 MB). In run_events a turn.started message holds
// `ref`, an id in run_texts, instead of `content`; reading puts the text back, so `events()` and
// `eventsJson()` return exactly what was appended. Invariant: a stored message has either `content`
// (rows written before migration 6) or `ref`, never both, and every `ref` names a row of its run;
// reading names a break of either: RunLogDamagedError, RunTextMissingError.
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { RunEvent } from '../api/index.ts';

type TurnStarted = Extract<RunEvent, { kind: 'turn.started' }>;
type Role = TurnStarted['messages'][number]['role'];

export class RunTextMissingError extends Error {
  override readonly name = 'RunTextMissingError';
  constructor(runId: string, id: number) {
    super(
      `The log of run '${runId}' refers to prompt text ${String(id)}, which the workspace does not hold; the database was changed outside RLM Studio`,
    );
  }
}

export class RunLogDamagedError extends Error {
  override readonly name = 'RunLogDamagedError';
  constructor(runId: string, detail: string) {
    super(
      `The log of run '${runId}' is damaged: ${detail}; the database was changed outside RLM Studio`,
    );
  }
}

/**
 * One run's text ids. An id is kept for reuse only once the transaction that wrote its text has
 * committed: after a rollback the text is written again with the next event that holds it.
 */
export class TextIds {
  readonly runId: string;
  readonly #committed = new Map<string, number>();
  readonly #pending = new Map<string, number>();
  #next = 0;

  constructor(runId: string) {
    this.runId = runId;
  }

  /** The text's id; a text seen for the first time is written with `insert` (textInsert's). */
  idOf(text: string, insert: StatementSync): number {
    let id = this.#committed.get(text) ?? this.#pending.get(text);
    if (id === undefined) {
      id = this.#next++;
      insert.run(this.runId, id, text);
      this.#pending.set(text, id);
    }
    return id;
  }

  commit(): void {
    for (const [text, id] of this.#pending) this.#committed.set(text, id);
    this.#pending.clear();
  }

  rollback(): void {
    this.#pending.clear();
  }
}

/** The statement that writes a run_texts row (prepare one per transaction). */
export function textInsert(db: DatabaseSync): StatementSync {
  return db.prepare('INSERT INTO run_texts (run_id, id, text) VALUES (?, ?, ?)');
}

/** The JSON stored for an event: turn.started messages by reference, every other event as is. */
export function storedJson(event: RunEvent, ids: TextIds, insert: StatementSync): string {
  if (event.kind !== 'turn.started') return JSON.stringify(event);
  return JSON.stringify({
    ...event,
    messages: event.messages.map((message) => ({
      role: message.role,
      ref: ids.idOf(message.content, insert),
    })),
  });
}

function loadTexts(db: DatabaseSync, runId: string): Map<number, string> {
  const rows = db.prepare('SELECT id, text FROM run_texts WHERE run_id = ?').all(runId) as {
    id: number;
    text: string;
  }[];
  return new Map(rows.map((row) => [row.id, row.text]));
}

function textOf(texts: Map<number, string>, runId: string, id: number): string {
  const text = texts.get(id);
  if (text === undefined) throw new RunTextMissingError(runId, id);
  return text;
}

interface StoredMessage {
  role: Role;
  content?: unknown;
  ref?: unknown;
}

function noTextError(runId: string, event: TurnStarted): RunLogDamagedError {
  return new RunLogDamagedError(
    runId,
    `a prompt message of agent ${event.agentId}, turn ${String(event.turn)} holds neither its text nor a reference to it`,
  );
}

/** Reads a run's stored rows back into the events that were appended. */
export function decodeEvents(
  db: DatabaseSync,
  runId: string,
  rows: readonly { kind: string; data: string }[],
): RunEvent[] {
  let texts: Map<number, string> | null = null;
  return rows.map((row) => {
    const event = JSON.parse(row.data) as RunEvent;
    if (event.kind !== 'turn.started') return event;
    const stored = event.messages as StoredMessage[];
    if (stored.every((message) => typeof message.content === 'string')) return event;
    texts ??= loadTexts(db, runId);
    const known = texts;
    return {
      ...event,
      messages: stored.map((message) => {
        if (typeof message.ref === 'number')
          return { role: message.role, content: textOf(known, runId, message.ref) };
        if (typeof message.content === 'string')
          return { role: message.role, content: message.content };
        throw noTextError(runId, event);
      }),
    };
  });
}

// A message by reference, as storedJson writes it. Outside a string literal only: inside one every
// quote is escaped, so this cannot match text a model or a paper wrote.
const storedRef = /\{"role":"(system|user|assistant)","ref":(\d+)\}/g;
// A message with neither text nor reference (never written; a hand-edited database), likewise.
const bareMessage = /\{"role":"(?:system|user|assistant)"\}/;

/** The JSON text of the appended events, from the stored rows, without parsing what needs no change. */
export function decodeEventsJson(
  db: DatabaseSync,
  runId: string,
  rows: readonly { kind: string; data: string }[],
): string {
  let texts: Map<number, string> | null = null;
  const json = new Map<number, string>();
  const parts = rows.map((row) => {
    if (row.kind !== 'turn.started') return row.data;
    if (bareMessage.test(row.data)) throw noTextError(runId, JSON.parse(row.data) as TurnStarted);
    if (!row.data.includes('"ref":')) return row.data;
    texts ??= loadTexts(db, runId);
    const known = texts;
    return row.data.replace(storedRef, (_whole, role: string, id: string) => {
      const key = Number(id);
      let text = json.get(key);
      if (text === undefined) {
        text = JSON.stringify(textOf(known, runId, key));
        json.set(key, text);
      }
      return `{"role":"${role}","content":${text}}`;
    });
  });
  return `[${parts.join(',')}]`;
}
