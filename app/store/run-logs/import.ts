// Importing a run log file: JSON lines parsed one by one (a bad line is a RunLogLineError with its
// number, never the end of the import), the format detected or given, every run stored as an
// ordinary run so every view works on it.
import { randomUUID } from 'node:crypto';
import { RunEvent, type RunEvent as RunEventType } from '../../api/index.ts';
import type { RunStore } from '../index.ts';
import { EmptyRunLogError, RunLogLineError, UnknownRunLogFormatError } from './errors.ts';
import { isExportHeader, readOurs } from './studio-run-log.ts';
import { readRlmLog } from './rlm-logger.ts';
import { readSkyRl } from './skyrl-eval-dump.ts';
import { isRecord, type FormatReadResult, type ParsedLine, type RunLogFormat } from './types.ts';

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
  problems: { line: number; name: string; message: string }[];
}

/** Splits JSON lines; blank lines are ignored, unparsable ones are problems. */
export function parseJsonLines(text: string): { lines: ParsedLine[]; problems: RunLogLineError[] } {
  const lines: ParsedLine[] = [];
  const problems: RunLogLineError[] = [];
  text.split(/\r?\n/).forEach((raw, index) => {
    if (raw.trim() === '') return;
    try {
      lines.push({ line: index + 1, value: JSON.parse(raw) as unknown });
    } catch (error) {
      problems.push(
        new RunLogLineError(
          index + 1,
          `not JSON (${error instanceof Error ? error.message : String(error)})`,
        ),
      );
    }
  });
  return { lines, problems };
}

/** The format of a file from its first readable lines. */
export function detectFormat(lines: readonly ParsedLine[], source = 'the file'): RunLogFormat {
  for (const { value } of lines.slice(0, 20)) {
    if (isExportHeader(value)) return 'ours';
    if (!isRecord(value)) continue;
    if (value.type === 'metadata' || value.type === 'run_context' || value.type === 'iteration')
      return 'rlm-log';
    if ('input_prompt' in value && 'output_response' in value) return 'skyrl';
  }
  throw new UnknownRunLogFormatError(
    source,
    lines.length === 0
      ? 'no JSON line'
      : 'no line looks like a run header, an rlm log entry or a SkyRL row',
  );
}

export function parseRunLog(
  text: string,
  options: {
    format?: RunLogFormat | 'auto';
    source?: string;
    now?: number;
    newId?: () => string;
  } = {},
): ParsedRunLog {
  const { lines, problems } = parseJsonLines(text);
  const format =
    !options.format || options.format === 'auto'
      ? detectFormat(lines, options.source)
      : options.format;
  const newId = options.newId ?? randomUUID;
  const read =
    format === 'ours'
      ? readOurs(lines)
      : format === 'rlm-log'
        ? readRlmLog(lines, newId, options.now ?? Date.now())
        : readSkyRl(lines, newId, options.now ?? Date.now());
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
  const parsed = parseRunLog(text, options);
  if (parsed.runs.length === 0) {
    if (parsed.problems.length > 0)
      throw parsed.problems[0] ?? new EmptyRunLogError(options.source ?? 'the file');
    throw new EmptyRunLogError(options.source ?? 'the file');
  }
  const runs: ImportedRunSummary[] = [];
  for (const run of parsed.runs) {
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
        source: options.storeAs ?? parsed.format,
        parentRunId: run.parentRunId,
        score: run.score,
        createdAt: run.createdAt,
      },
      events,
    );
    const summary = store.get(runId);
    runs.push({
      runId,
      question: summary.question,
      model: summary.model,
      status: summary.status,
      agents: summary.agents,
      turns: summary.turns,
      renamedFrom: taken ? run.id : null,
    });
  }
  return {
    format: parsed.format,
    runs,
    problems: parsed.problems.map((problem) => ({
      line: problem.line,
      name: problem.name,
      message: problem.message,
    })),
  };
}
