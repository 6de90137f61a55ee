// Prime Intellect's nano-rlm session folders -> runs. A session is a folder with `meta.json`
// (rewritten whole: model, depth, status, start_time, ...) and `messages.jsonl` (appended line by
// line: system, user, assistant with its tool call, tool_result, sub_spawn, done); each sub-call
// is a `sub-<hex>` folder inside its parent's, of the same layout, nesting again. The tree comes
// from the folders and the parent's sub_spawn lines (which say where and when each child started);
// every line carries its time, so the sessions' events are merged by it. nano-rlm logs usage only
// as a session's total (on `done`): it goes on the session's last answer.
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { Budgets, type RunEvent } from '../../api/index.ts';
import { RunLogLineError } from './errors.ts';
import { completeLines, parseJsonLines } from './json-lines.ts';
import { errorFromStderr, RunBuilder, textOf } from './run-builder.ts';
import { isRecord, type ImportedRun, type ParsedLine, type Record_ } from './types.ts';

export interface NanoSession {
  /** The folder's path below the root session's ('' for the root, 'sub-ab12/sub-cd34'). */
  path: string;
  name: string;
  meta: Record_ | null;
  lines: ParsedLine[];
  children: NanoSession[];
}

const sessionFiles = ['meta.json', 'messages.jsonl'] as const;
/** What a tool result may show of itself in a later turn's prompt (nano-rlm cuts at 20 KB). */
const promptToolChars = 20_000;

/** Whether a folder is a nano-rlm session (its meta.json or messages.jsonl is there). */
export function isNanoSessionDir(dir: string): boolean {
  try {
    const names = new Set(readdirSync(dir));
    return sessionFiles.some((file) => names.has(file));
  } catch {
    return false;
  }
}

/**
 * Reads a session folder and its sub-call folders. `open`: the tool may be writing, so a last line
 * without its newline is not read yet (nano-rlm's own reader does the same); meta.json.tmp and
 * the `jobs/` folder (bash jobs, with a meta.json of their own) are never read.
 */
export function readNanoSessionDir(
  dir: string,
  open: boolean,
  problems: RunLogLineError[],
  path = '',
): NanoSession {
  const name = path ? (path.split('/').at(-1) ?? '') : basename(dir);
  const file = (leaf: string) => (path ? `${path}/${leaf}` : leaf);
  let meta: Record_ | null = null;
  try {
    const parsed: unknown = JSON.parse(readFileSync(join(dir, 'meta.json'), 'utf8'));
    meta = isRecord(parsed) ? parsed : null;
    if (!meta)
      problems.push(
        new RunLogLineError(1, 'a nano-rlm meta.json that is not an object', file('meta.json')),
      );
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
      problems.push(
        new RunLogLineError(
          1,
          `a nano-rlm meta.json that does not parse (${(error as Error).message})`,
          file('meta.json'),
        ),
      );
  }
  let text = '';
  try {
    text = readFileSync(join(dir, 'messages.jsonl'), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const parsed = parseJsonLines(open ? completeLines(text) : text, file('messages.jsonl'));
  problems.push(...parsed.problems);
  for (const { line, value } of parsed.lines)
    if (!isRecord(value) || typeof value.type !== 'string')
      problems.push(
        new RunLogLineError(
          line,
          "a nano-rlm messages.jsonl line without a 'type'",
          file('messages.jsonl'),
        ),
      );
  const children = readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && entry.name.startsWith('sub-'))
    .map((entry) =>
      readNanoSessionDir(
        join(dir, entry.name),
        open,
        problems,
        path ? `${path}/${entry.name}` : entry.name,
      ),
    );
  return { path, name, meta, lines: parsed.lines, children };
}

interface Timed {
  at: number;
  seq: number;
  key: string;
  event: RunEvent;
}

const seconds = (value: unknown): number | null =>
  typeof value === 'number' && Number.isFinite(value) ? value * 1000 : null;

function toolCallOf(line: Record_): { name: string; code: string } | null {
  const calls = Array.isArray(line.tool_calls) ? line.tool_calls.filter(isRecord) : [];
  const call = calls[0];
  if (!call) return null;
  const name = typeof call.name === 'string' ? call.name : 'tool';
  const args = isRecord(call.args) ? call.args : {};
  if (typeof args.code === 'string') return { name, code: args.code };
  if (typeof args._raw === 'string') return { name, code: args._raw };
  return { name, code: `${name}(${JSON.stringify(args)})` };
}

/** The first of the texts that is not empty. */
const firstText = (...texts: string[]): string => texts.find((text) => text.length > 0) ?? '';

const promptOf = (line: Record_): string =>
  typeof line.content === 'string'
    ? line.content
    : isRecord(line.message)
      ? textOf(line.message.content)
      : '';

/** Builds every session's events (children's where their parent's sub_spawn puts them). */
class Converter {
  readonly timed: Timed[] = [];
  #seq = 0;
  readonly #open: boolean;
  constructor(open: boolean) {
    this.#open = open;
  }

  #add(at: number, key: string, event: RunEvent): void {
    this.timed.push({ at, seq: this.#seq++, key, event });
  }

  /** One session; returns how it ended (null while it is still going). */
  session(
    session: NanoSession,
    agentId: string,
    depth: number,
    parent: { agentId: string; at: number; prompt: string } | null,
  ): { at: number; answer: unknown; error: { name: string; message: string } | null } | null {
    const k = (suffix: string) => `${session.path || '.'}/${suffix}`;
    const meta = session.meta ?? {};
    const firstAt =
      seconds(meta.start_time) ??
      seconds(isRecord(session.lines[0]?.value) ? session.lines[0].value.timestamp : null);
    let clock = Math.max(firstAt ?? parent?.at ?? 0, parent?.at ?? 0);
    const lines = session.lines.filter((l): l is { line: number; value: Record_ } =>
      isRecord(l.value),
    );
    const firstUser = lines.find((l) => l.value.type === 'user');
    const prompt = firstText(
      firstUser ? promptOf(firstUser.value) : '',
      parent?.prompt ?? '',
      textOf(meta.task ?? meta.prompt_preview),
    );
    this.#add(clock, k('spawned'), {
      kind: 'agent.spawned',
      at: 0,
      agentId,
      parentId: parent?.agentId ?? null,
      depth,
      prompt,
      contextChars: prompt.length,
    });
    const done = lines.find((l) => l.value.type === 'done');
    const history: { role: 'system' | 'user' | 'assistant'; content: string }[] = [];
    let turn = -1;
    let toolTurn = -1;
    let lastModel: RunEvent | null = null;
    let finalText: string | null = null;
    let childIndex = 0;
    const byName = new Map(session.children.map((child) => [child.name, child]));
    const spawned = new Set<string>();
    for (const { line, value } of lines) {
      const at = Math.max(clock, seconds(value.timestamp) ?? clock);
      switch (value.type) {
        case 'system':
          history.push({
            role: 'system',
            content: isRecord(value.message)
              ? textOf(value.message.content)
              : textOf(value.content),
          });
          break;
        case 'user':
        case 'parent_message':
        case 'supervisor_notification':
          history.push({ role: 'user', content: promptOf(value) });
          break;
        case 'assistant': {
          const call = toolCallOf(value);
          const content =
            typeof value.content === 'string'
              ? value.content
              : isRecord(value.message)
                ? textOf(value.message.content)
                : '';
          // The answer's turn waits for `done` (which carries the session's usage) while open.
          if (!call && !done && this.#open) break;
          turn++;
          this.#add(clock, k(`${line}/turn`), {
            kind: 'turn.started',
            at: 0,
            agentId,
            turn,
            messages: history.map((m) => ({ ...m })),
          });
          const text = call
            ? `${content}${content ? '\n\n' : ''}\`\`\`${call.name}\n${call.code}\n\`\`\``
            : content;
          lastModel = {
            kind: 'model.done',
            at: 0,
            agentId,
            turn,
            text,
            usage: { inputTokens: 0, outputTokens: 0 },
            costUsd: null,
            latencyMs: Math.max(0, at - clock),
            finishReason: call ? 'tool_calls' : 'stop',
          };
          this.#add(at, k(`${line}/model`), lastModel);
          history.push({ role: 'assistant', content: text });
          if (call) {
            this.#add(at, k(`${line}/code`), {
              kind: 'code.started',
              at: 0,
              agentId,
              turn,
              block: 0,
              code: call.code,
            });
          } else finalText = content;
          break;
        }
        case 'tool_result': {
          const content = textOf(value.content);
          history.push({ role: 'user', content: content.slice(0, promptToolChars) });
          if (toolTurn === turn || turn < 0) break; // nano-rlm refuses extra calls of a turn
          toolTurn = turn;
          this.#add(at, k(`${line}/output`), {
            kind: 'repl.output',
            at: 0,
            agentId,
            turn,
            block: 0,
            stdout: content,
            stderr: '',
            error: errorFromStderr(content),
            durationMs: seconds(value.duration) ?? 0,
            variables: [],
          });
          break;
        }
        case 'sub_spawn': {
          const name = textOf(value.child_dir).split('/').at(-1) ?? '';
          const child = byName.get(name);
          if (!child || spawned.has(name)) break;
          spawned.add(name);
          const childId = `${agentId}.${childIndex++}`;
          this.#spawn(
            child,
            agentId,
            childId,
            depth,
            Math.max(turn, 0),
            at,
            textOf(value.prompt),
            k(`${line}/call`),
          );
          break;
        }
        case 'done': {
          const answer =
            (finalText?.startsWith(textOf(value.answer).slice(0, 1000)) ?? false)
              ? finalText
              : value.answer;
          const usage = isRecord(value.usage)
            ? value.usage
            : isRecord(meta.usage)
              ? meta.usage
              : null;
          if (usage && lastModel?.kind === 'model.done')
            lastModel.usage = {
              inputTokens: Math.round(Number(usage.prompt_tokens) || 0),
              outputTokens: Math.round(Number(usage.completion_tokens) || 0),
            };
          this.#add(at, k('final'), {
            kind: 'final.answer',
            at: 0,
            agentId,
            turn: Math.max(turn, 0),
            answer,
            via: 'FINAL',
          });
          // Children the log never spawned (a sub_spawn line lost) are still the session's.
          this.#unspawned(session, spawned, agentId, depth, turn, childIndex);
          return { at, answer, error: null };
        }
        default:
          break; // context windows, compactions, nudges: not turns
      }
      clock = at;
    }
    const status = textOf(meta.status);
    if (status === 'failed' || status === 'cancelled')
      return this.#failed(
        agentId,
        k('failed'),
        clock,
        status === 'failed' ? 'ImportedAgentFailedError' : 'ImportedAgentCanceledError',
        textOf(meta.error) || `nano-rlm marked the session ${status}`,
      );
    if (this.#open) return null;
    this.#unspawned(session, spawned, agentId, depth, turn, childIndex);
    return this.#failed(
      agentId,
      k('failed'),
      clock,
      'ImportedRunUnfinishedError',
      'the session ends before its done line: it was still running, or its process died',
    );
  }

  #failed(agentId: string, key: string, at: number, name: string, message: string) {
    const error = { name, message };
    this.#add(at, key, { kind: 'agent.failed', at: 0, agentId, error });
    return { at, answer: null, error };
  }

  /** Sub-call folders no sub_spawn line named: attached at the end of a closed session. */
  #unspawned(
    session: NanoSession,
    spawned: Set<string>,
    agentId: string,
    depth: number,
    turn: number,
    from: number,
  ): void {
    if (this.#open) return;
    const left = session.children
      .filter((child) => !spawned.has(child.name))
      .sort((a, b) => (seconds(a.meta?.start_time) ?? 0) - (seconds(b.meta?.start_time) ?? 0));
    left.forEach((child, i) => {
      spawned.add(child.name);
      const at = seconds(child.meta?.start_time) ?? 0;
      this.#spawn(
        child,
        agentId,
        `${agentId}.${from + i}`,
        depth,
        Math.max(turn, 0),
        at,
        '',
        `${child.path}/orphan-call`,
      );
    });
  }

  #spawn(
    child: NanoSession,
    agentId: string,
    childId: string,
    depth: number,
    turn: number,
    at: number,
    prompt: string,
    key: string,
  ): void {
    const childPrompt = prompt || textOf(child.meta?.task ?? child.meta?.prompt_preview);
    this.#add(at, key, {
      kind: 'child.call',
      at: 0,
      agentId,
      turn,
      childId,
      call: 'rlm',
      prompt: childPrompt,
    });
    const end = this.session(child, childId, depth + 1, { agentId, at, prompt: childPrompt });
    if (end)
      this.#add(end.at, `${child.path}/returned`, {
        kind: 'child.returned',
        at: 0,
        agentId,
        childId,
        answer: end.answer,
        error: end.error,
      });
  }
}

/**
 * A root session as a run; every event has a key that stays the same as the folder grows (a
 * followed session's new lines add events, merged by time, without changing earlier ones).
 */
export function convertNanoSession(
  root: NanoSession,
  id: string,
  now: number,
  open: boolean,
): ImportedRun {
  const converter = new Converter(open);
  const end = converter.session(root, '0', 0, null);
  const timed = converter.timed.sort((a, b) => a.at - b.at || a.seq - b.seq);
  const spawned = timed[0]?.event;
  const question = spawned?.kind === 'agent.spawned' ? spawned.prompt : '';
  const firstAt = timed[0]?.at ?? 0;
  const createdAt = firstAt > 0 ? firstAt : now;
  const model = textOf(root.meta?.model) || 'nano-rlm';
  const b = new RunBuilder(createdAt, {
    runId: id,
    question: question.slice(0, 20_000),
    set: '',
    papers: [],
    model,
    budgets: Budgets.parse({}),
    codeBlocks: 'first',
    prompts: 'nano-rlm',
  });
  const keys = ['started'];
  for (const entry of timed) {
    b.push({ ...entry.event, at: b.at(entry.at) });
    keys.push(entry.key);
  }
  const base = {
    id,
    key: root.path || root.name || 'session',
    question: question.slice(0, 20_000),
    set: '',
    model,
    createdAt,
    parentRunId: null,
    score: null,
  };
  if (!end) return { ...base, events: b.events, eventKeys: keys };
  keys.push('finished');
  const events = b.finish(
    end.error
      ? {
          status:
            end.error.name === 'ImportedAgentCanceledError'
              ? 'canceled'
              : end.error.name === 'ImportedRunUnfinishedError'
                ? 'interrupted'
                : 'failed',
          answer: null,
          error: end.error,
        }
      : { status: 'done', answer: end.answer, error: null },
    end.at,
  );
  return { ...base, events, eventKeys: keys };
}
