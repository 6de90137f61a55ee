// Our own export: JSON lines, per run a header `{"format":"rlm-studio.run","version":1,"run":
// summary}` followed by that run's events, one per line, in log order. Several runs may follow
// each other in one file. Reading validates every line against app/api's schemas.
import { RunEvent, RunSummary, type RunSummaryPayload } from '../../api/index.ts';
import { RunLogLineError } from './errors.ts';
import { isRecord, type FormatReadResult, type ImportedRun, type ParsedLine } from './types.ts';

export const exportFormatName = 'rlm-studio.run';
export const exportFormatVersion = 1;

export function exportHeader(run: RunSummaryPayload): string {
  return JSON.stringify({ format: exportFormatName, version: exportFormatVersion, run });
}

/** One run as export lines (header, then events), each ending in a newline. */
export function exportRunLines(run: RunSummaryPayload, events: readonly RunEvent[]): string {
  return `${exportHeader(run)}\n${events.map((event) => `${JSON.stringify(event)}\n`).join('')}`;
}

export function isExportHeader(value: unknown): boolean {
  return isRecord(value) && value.format === exportFormatName;
}

function issues(error: {
  issues: readonly { path: readonly PropertyKey[]; message: string }[];
}): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.map(String).join('.') || '(root)'}: ${issue.message}`)
    .join('; ');
}

export function readOurs(lines: readonly ParsedLine[]): FormatReadResult {
  const problems: RunLogLineError[] = [];
  const runs: ImportedRun[] = [];
  let current: ImportedRun | null = null;
  let skipping = false;
  for (const { line, value } of lines) {
    if (isExportHeader(value)) {
      const header = value as { version?: unknown; run?: unknown };
      if (header.version !== exportFormatVersion) {
        problems.push(
          new RunLogLineError(
            line,
            `export version ${JSON.stringify(header.version)}; this app reads version ${exportFormatVersion}`,
          ),
        );
        current = null;
        skipping = true;
        continue;
      }
      const parsed = RunSummary.safeParse(header.run);
      if (!parsed.success) {
        problems.push(
          new RunLogLineError(
            line,
            `a run header that does not match the schema (${issues(parsed.error)}); its events are skipped`,
          ),
        );
        current = null;
        skipping = true;
        continue;
      }
      const run = parsed.data;
      current = {
        id: run.id,
        question: run.question,
        set: run.set,
        model: run.model,
        createdAt: run.createdAt,
        parentRunId: run.parentRunId,
        score: run.score,
        events: [],
      };
      skipping = false;
      runs.push(current);
      continue;
    }
    if (skipping) continue;
    if (!current) {
      problems.push(new RunLogLineError(line, 'an event before any run header'));
      continue;
    }
    const event = RunEvent.safeParse(value);
    if (!event.success) {
      problems.push(new RunLogLineError(line, `not a run event (${issues(event.error)})`));
      continue;
    }
    current.events.push(event.data);
  }
  return { runs, problems };
}
