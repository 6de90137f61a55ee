// Run logs by path: a file (any format this app reads), a nano-rlm session folder, a folder of
// sessions (nano-rlm's `sessions/`), or a folder of log files (rlm writes one JSONL per logger
// into its log_dir). Each source is read on its own: one that fails is reported, the others import.
import { readdirSync, readFileSync, statSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { RunStore } from '../index.ts';
import { EmptyRunLogError, RunLogPathError, type RunLogLineError } from './errors.ts';
import {
  parseRunLog,
  storeParsed,
  type ImportReport,
  type ParsedRunLog,
  type ParseOptions,
} from './import.ts';
import { convertNanoSession, isNanoSessionDir, readNanoSessionDir } from './nano-rlm.ts';

export interface LogSource {
  kind: 'file' | 'nano-rlm';
  path: string;
}

const logFile = /\.(jsonl|json|ndjson)$/i;

function statOf(path: string): Stats {
  try {
    return statSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT')
      throw new RunLogPathError(path, 'there is no such file or folder');
    throw error;
  }
}

/** The logs a path holds, in name order; a folder with none is a RunLogPathError. */
export function logSourcesAt(path: string, { allowEmpty = false } = {}): LogSource[] {
  if (!statOf(path).isDirectory()) return [{ kind: 'file', path }];
  if (isNanoSessionDir(path)) return [{ kind: 'nano-rlm', path }];
  const sources: LogSource[] = [];
  for (const entry of readdirSync(path, { withFileTypes: true }).sort((a, b) =>
    a.name.localeCompare(b.name),
  )) {
    const full = join(path, entry.name);
    if (entry.isDirectory() && isNanoSessionDir(full))
      sources.push({ kind: 'nano-rlm', path: full });
    else if (entry.isFile() && logFile.test(entry.name)) sources.push({ kind: 'file', path: full });
  }
  if (sources.length === 0 && !allowEmpty)
    throw new RunLogPathError(
      path,
      'the folder holds no run log: no .jsonl or .json file and no nano-rlm session folder (meta.json, messages.jsonl)',
    );
  return sources;
}

/** A change stamp of a source: its files' sizes and times (a session's whole tree). */
export function sourceStamp(source: LogSource): string {
  if (source.kind === 'file') {
    const stat = statSync(source.path, { throwIfNoEntry: false });
    return stat ? `${stat.size}:${stat.mtimeMs}` : 'gone';
  }
  const parts: string[] = [];
  const walk = (dir: string) => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const full = join(dir, entry.name);
      if (entry.isDirectory() && entry.name.startsWith('sub-')) walk(full);
      else if (entry.name === 'meta.json' || entry.name === 'messages.jsonl') {
        const stat = statSync(full, { throwIfNoEntry: false });
        if (stat) parts.push(`${full}:${stat.size}:${stat.mtimeMs}`);
      }
    }
  };
  walk(source.path);
  return parts.sort().join('|');
}

export interface ParsedSource extends ParsedRunLog {
  source: LogSource;
}

/** Reads one source (a file's format detected or given; a session folder is nano-rlm's). */
export function readLogSource(source: LogSource, options: ParseOptions = {}): ParsedSource {
  if (source.kind === 'file') {
    const text = readFileSync(source.path, 'utf8');
    return { source, ...parseRunLog(text, { source: `'${source.path}'`, ...options }) };
  }
  const problems: RunLogLineError[] = [];
  const root = readNanoSessionDir(source.path, options.open ?? false, problems);
  const run = convertNanoSession(
    root,
    (options.newId ?? randomUUID)(),
    options.now ?? Date.now(),
    options.open ?? false,
  );
  return { source, format: 'nano-rlm', runs: [run], problems };
}

export interface PathImportReport {
  path: string;
  logs: (ImportReport & { source: string })[];
  /** Sources of a folder that could not be read at all (their error), the others imported. */
  failures: { source: string; name: string; message: string }[];
}

/**
 * Imports every log a path holds. A single file's error is thrown as it is; in a folder a
 * source that fails is listed in `failures` and the rest import. Nothing imported is an error.
 */
export function importRunLogPath(
  store: RunStore,
  path: string,
  options: Pick<ParseOptions, 'format' | 'now'> = {},
): PathImportReport {
  const sources = logSourcesAt(path);
  const report: PathImportReport = { path, logs: [], failures: [] };
  const single = sources.length === 1 && sources[0]?.kind === 'file';
  for (const source of sources) {
    try {
      const parsed = readLogSource(source, source.kind === 'file' ? options : { now: options.now });
      report.logs.push({
        source: source.path,
        ...storeParsed(store, parsed, { source: `'${source.path}'` }),
      });
    } catch (error) {
      if (single || !(error instanceof Error)) throw error;
      report.failures.push({ source: source.path, name: error.name, message: error.message });
    }
  }
  if (report.logs.length === 0) {
    const first = report.failures[0];
    throw new EmptyRunLogError(`'${path}'${first ? ` (${first.name}: ${first.message})` : ''}`);
  }
  return report;
}
