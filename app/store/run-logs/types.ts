// What every format reader produces: runs as complete event logs plus the lines it had to skip.
import type { RunEvent } from '../../api/index.ts';
import type { RunLogLineError } from './errors.ts';

export const runLogFormats = ['ours', 'rlm-log', 'skyrl'] as const;
export type RunLogFormat = (typeof runLogFormats)[number];

/** One JSON line of a file with its 1-based line number. */
export interface ParsedLine {
  line: number;
  value: unknown;
}

export interface ImportedRun {
  /** Kept when the file names one (our own export); otherwise the importer assigns one. */
  id: string;
  question: string;
  set: string;
  model: string;
  createdAt: number;
  parentRunId: string | null;
  score: number | null;
  /** run.started first, run.finished last. */
  events: RunEvent[];
}

export interface FormatReadResult {
  runs: ImportedRun[];
  problems: RunLogLineError[];
}

export type Record_ = Readonly<Record<string, unknown>>;

export function isRecord(value: unknown): value is Record_ {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
