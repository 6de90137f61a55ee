// What every format reader produces: runs as complete event logs plus the lines it had to skip.
import type { RunEvent } from '../../api/index.ts';
import type { RunLogLineError } from './errors.ts';

export const runLogFormats = ['ours', 'rlm-log', 'skyrl', 'dspy', 'nano-rlm'] as const;
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
  /**
   * run.started first, run.finished last; no run.finished while a followed log is still open (the
   * run has not ended yet).
   */
  events: RunEvent[];
  /** Which run of its source this is, the same on every re-read of a growing log. */
  key?: string;
  /**
   * One key per event, the same on every re-read of a growing log, where events of earlier lines
   * can come later in the order (a nano-rlm child's, merged by time). Without: the index.
   */
  eventKeys?: string[];
}

export interface FormatReadResult {
  runs: ImportedRun[];
  problems: RunLogLineError[];
}

export type Record_ = Readonly<Record<string, unknown>>;

export function isRecord(value: unknown): value is Record_ {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
