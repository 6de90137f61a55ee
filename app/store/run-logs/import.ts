// Importing a run log file: JSON lines parsed one by one (a bad line is a RunLogLineError with its
// number, never the end of the import), the format detected or given, every run stored as an
// ordinary run so every view works on it.
import { randomUUID } from 'node:crypto';
import { RunEvent, type RunEvent as RunEventType } from '../../api/index.ts';
import type { RunStore } from '../index.ts';
import { EmptyRunLogError, type RunLogLineError, UnknownRunLogFormatError } from './errors.ts';
import { looksLikeDspy, readDspy } from './dspy-rlm.ts';
import { completeLines, parseLogText } from './json-lines.ts';
import { isExportHeader, readOurs } from './studio-run-log.ts';
import { readRlmLog } from './rlm-logger.ts';
import { readSkyRl } from './skyrl-eval-dump.ts';
import {
  isRecord,
  type FormatReadResult,
  type ImportedRun,
  type ParsedLine,
  type RunLogFormat,
} from './types.ts';

export interface ParsedRunLog extends FormatReadResult {
  format: RunLogFormat;
}

export interface ImportedRunSummary {
  runId: string;
  question: string;
  model: string;
  status: string;
  agents: number;
  turns: number;
  /** The id the file gave it, when it had to be renamed (already taken in this workspace). */
  renamedFrom: string | null;
}

export interface ImportReport {
  format: RunLogFormat;
  runs: ImportedRunSummary[];
  problems: { line: number; file?: string; name: string; message: string }[];
}

/** The format of a file from its first readable lines. */
export function detectFormat(lines: readonly ParsedLine[], source = 'the file'): RunLogFormat {
  for (const { value } of lines.slice(0, 20)) {
    if (isExportHeader(value)) return 'ours';
    if (!isRecord(value)) continue;
    if (value.type === 'metadata' || value.type === 'run_context' || value.type === 'iteration')
      return 'rlm-log';
    if ('input_prompt' in value && 'output_response' in value) return 'skyrl';
    if (looksLikeDspy(value)) return 'dspy';
  }
  throw new UnknownRunLogFormatError(
    source,
    lines.length === 0 ? 'no JSON line' : lookedLike(lines),
  );
}

/** What an unreadable file looked like, and what it lacked, for the error. */
function lookedLike(lines: readonly ParsedLine[]): string {
  const first = lines.find((line) => isRecord(line.value))?.value;
  if (!isRecord(first)) return 'its JSON is not objects';
  if ('input_prompt' in first)
    return "it looks like a SkyRL eval dump, but its rows have no 'output_response'";
  if ('output_response' in first)
    return "it looks like a SkyRL eval dump, but its rows have no 'input_prompt'";
  if (typeof first.type === 'string' && ('response' in first || 'prompt' in first))
    return `it looks like an rlm log, but its first entry's type is ${JSON.stringify(first.type)} (expected metadata, run_context or iteration)`;
  if (first.type === 'assistant' || first.type === 'tool_result' || first.type === 'sub_spawn')
    return 'it looks like a nano-rlm messages.jsonl: import the session folder (with its meta.json), not the file';
  for (const key of ['trajectory', 'repl_trajectory'])
    if (key in first)
      return `it looks like a DSPy RLM prediction, but its '${key}' is not a list of {reasoning, code, output} steps`;
  if ('format' in first)
    return `its 'format' is ${JSON.stringify(first.format)}, not ${JSON.stringify('rlm-studio.run')}`;
  return `no line looks like a run header, an rlm log entry, a SkyRL row or a DSPy RLM prediction (the first has ${Object.keys(first).slice(0, 6).join(', ') || 'no keys'})`;
}

export function readLines(
  format: Exclude<RunLogFormat, 'nano-rlm'>,
  lines: readonly ParsedLine[],
  newId: () => string,
  now: number,
  open: boolean,
): FormatReadResult {
  switch (format) {
    case 'ours':
      return readOurs(lines);
    case 'rlm-log':
      return readRlmLog(lines, newId, now, open);
    case 'skyrl':
      return readSkyRl(lines, newId, now);
    case 'dspy':
      return readDspy(lines, newId, now);
  }
}

export interface ParseOptions {
  format?: RunLogFormat | 'auto';
  source?: string;
  now?: number;
  newId?: () => string;
  /** The file may still be written (a followed log): a partial last line waits, runs may be open. */
  open?: boolean;
}

export function parseRunLog(text: string, options: ParseOptions = {}): ParsedRunLog {
  const { lines, problems } = parseLogText(options.open ? completeLines(text) : text);
  const format =
    !options.format || options.format === 'auto'
      ? detectFormat(lines, options.source)
      : options.format;
  if (format === 'nano-rlm')
    throw new UnknownRunLogFormatError(
      options.source ?? 'the file',
      'a nano-rlm log is a session folder (meta.json, messages.jsonl, sub-* folders): import the folder',
    );
  const read = readLines(
    format,
    lines,
    options.newId ?? randomUUID,
    options.now ?? Date.now(),
    options.open ?? false,
  );
  return {
    format,
    runs: read.runs,
    problems: [...problems, ...read.problems].sort((a, b) => a.line - b.line),
  };
}

function withRunId(events: readonly RunEventType[], runId: string): RunEventType[] {
  return events.map((event) => (event.kind === 'run.started' ? { ...event, runId } : event));
}

/** Parses and stores every run of a file; returns what was imported and what was skipped. */
export function importRunLog(
  store: RunStore,
  text: string,
  options: {
    format?: RunLogFormat | 'auto';
    source?: string;
    now?: number;
    /** Stored as the runs' source instead of the format (the bundled demo run: 'demo'). */
    storeAs?: string;
  } = {},
): ImportReport {
  return storeParsed(store, parseRunLog(text, options), options);
}

/** Stores parsed runs (each under a new id where its own is taken); none at all is an error. */
export function storeParsed(
  store: RunStore,
  parsed: ParsedRunLog,
  options: { source?: string; storeAs?: string } = {},
): ImportReport {
  if (parsed.runs.length === 0)
    throw parsed.problems[0] ?? new EmptyRunLogError(options.source ?? 'the file');
  const runs = parsed.runs.map((run) => storeRun(store, run, options.storeAs ?? parsed.format));
  return { format: parsed.format, runs, problems: parsed.problems.map(problemOf) };
}

export function problemOf(problem: RunLogLineError): ImportReport['problems'][number] {
  return {
    line: problem.line,
    ...(problem.file ? { file: problem.file } : {}),
    name: problem.name,
    message: problem.message,
  };
}

function storeRun(store: RunStore, run: ImportedRun, source: string): ImportedRunSummary {
  const taken = store.has(run.id);
  const runId = taken ? randomUUID() : run.id;
  // Events built by the readers are checked like any payload entering the engine.
  const events = withRunId(run.events, runId).map((event) => RunEvent.parse(event));
  store.insertRun(
    {
      id: runId,
      question: run.question,
      set: run.set,
      model: run.model,
      source,
      parentRunId: run.parentRunId,
      score: run.score,
      createdAt: run.createdAt,
    },
    events,
  );
  const summary = store.get(runId);
  return {
    runId,
    question: summary.question,
    model: summary.model,
    status: summary.status,
    agents: summary.agents,
    turns: summary.turns,
    renamedFrom: taken ? run.id : null,
  };
}
