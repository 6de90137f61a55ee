// Builds a run's event log from another tool's records: a clock that never goes backwards (logs
// carry few or coarse timestamps, replay needs ordered ones), and the totals run.finished needs.
import type { RunEvent, RunEventOf } from '../../api/index.ts';

type Started = Omit<RunEventOf<'run.started'>, 'kind' | 'at'>;
type Finished = Pick<RunEventOf<'run.finished'>, 'status' | 'answer' | 'error'>;

export class RunBuilder {
  readonly events: RunEvent[] = [];
  #clock: number;
  readonly #started: number;
  #agents = 0;
  #turns = 0;
  #inputTokens = 0;
  #outputTokens = 0;
  #cost: number | null = null;

  constructor(at: number, started: Started) {
    this.#clock = Math.round(at);
    this.#started = this.#clock;
    this.events.push({ kind: 'run.started', at: this.#clock, ...started });
  }

  /** A time no earlier than the last event's: `wanted` when it is, else the last time. */
  at(wanted?: number | null): number {
    if (wanted !== undefined && wanted !== null && Number.isFinite(wanted) && wanted > this.#clock)
      this.#clock = Math.round(wanted);
    return this.#clock;
  }

  push(event: RunEvent): void {
    switch (event.kind) {
      case 'agent.spawned':
        this.#agents++;
        break;
      case 'turn.started':
        this.#turns++;
        break;
      case 'model.done':
        this.#inputTokens += event.usage.inputTokens;
        this.#outputTokens += event.usage.outputTokens;
        if (event.costUsd !== null) this.#cost = (this.#cost ?? 0) + event.costUsd;
        break;
      default:
        break;
    }
    this.events.push(event);
  }

  finish(outcome: Finished, at?: number): RunEvent[] {
    const end = this.at(at);
    this.events.push({
      kind: 'run.finished',
      at: end,
      ...outcome,
      agents: this.#agents,
      turns: this.#turns,
      usage: { inputTokens: this.#inputTokens, outputTokens: this.#outputTokens },
      costUsd: this.#cost,
      durationMs: end - this.#started,
    });
    return this.events;
  }
}

/** Python's repr of a JSON value, for the variables panel (logs store locals as JSON). */
export function pythonRepr(value: unknown, limit = 300): string {
  const text = reprOf(value);
  return text.length > limit ? `${text.slice(0, limit - 3)}...` : text;
}

function reprOf(value: unknown): string {
  if (value === null || value === undefined) return 'None';
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string')
    return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n')}'`;
  if (Array.isArray(value)) return `[${value.map(reprOf).join(', ')}]`;
  if (typeof value === 'object')
    return `{${Object.entries(value)
      .map(([key, item]) => `${reprOf(key)}: ${reprOf(item)}`)
      .join(', ')}}`;
  return 'None'; // JSON holds nothing else
}

/** The Python type name of a JSON value as the logging tool serialised it. */
export function pythonType(value: unknown): string {
  if (value === null || value === undefined) return 'NoneType';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'float';
  if (typeof value === 'string') {
    const special = /^<(module|function|builtin_function_or_method|method|type|class) /.exec(value);
    return special?.[1] ?? 'str';
  }
  return Array.isArray(value) ? 'list' : 'dict';
}

/** The exception at the end of a traceback on stderr, if there is one. */
export function errorFromStderr(stderr: string): { type: string; message: string } | null {
  const lines = stderr.trimEnd().split('\n');
  for (let index = lines.length - 1; index >= 0; index--) {
    const match = /^([A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt|Warning))(?::\s?(.*))?$/.exec(
      lines[index]?.trim() ?? '',
    );
    if (match) return { type: match[1] ?? 'Error', message: match[2] ?? '' };
  }
  return null;
}

/** ISO timestamps without a zone are the logging machine's clock; read them as UTC. */
export function parseTimestamp(value: unknown): number | null {
  if (typeof value === 'number' && Number.isFinite(value))
    return value < 1e12 ? value * 1000 : value;
  if (typeof value !== 'string') return null;
  const zoned = /(Z|[+-]\d\d:?\d\d)$/.test(value) ? value : `${value}Z`;
  const ms = Date.parse(zoned.replace(/(\.\d{3})\d+/, '$1'));
  return Number.isNaN(ms) ? null : ms;
}

export function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) return '';
  return JSON.stringify(value);
}
