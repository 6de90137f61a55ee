// ExecutionResult as the loop sees it, assembled from what the interpreter reported: output,
// then the traceback and the REPL's own notes on stderr. Pure functions, no process state.
import type { RunOutcome } from './protocol.ts';
import type { ExecutionResult, ReplLimits } from './types.ts';

function withNewline(text: string): string {
  return text.endsWith('\n') ? text : `${text}\n`;
}

function memoryMessage(limits: ReplLimits): string {
  const mib = Math.round(limits.maxMemoryBytes / 2 ** 20);
  return `the interpreter's ${String(mib)} MiB memory limit was reached; keep less in memory (e.g. snippets instead of whole papers)`;
}

/** `note` is told first (e.g. that the interpreter restarted since the agent's last run). */
export function executionResult(
  outcome: RunOutcome,
  limits: ReplLimits,
  note: string | null,
  durationMs: number,
): ExecutionResult {
  const { report } = outcome;
  const cut = outcome.droppedChars;
  const capped =
    cut > 0
      ? `[REPL output capped at ${limits.maxOutputChars.toLocaleString('en')} characters: ${cut.toLocaleString('en')} more were cut]`
      : '';
  const stderr = [note ?? '', outcome.stderr, report.traceback, ...report.notes, capped]
    .filter((part) => part.length > 0)
    .map(withNewline)
    .join('');
  const error =
    report.error?.type === 'MemoryError' && report.error.message === 'out of memory'
      ? { type: 'MemoryError', message: memoryMessage(limits) }
      : report.error;
  return {
    stdout: outcome.stdout,
    stderr,
    error,
    final: report.final,
    variables: report.variables,
    durationMs,
    truncated: cut > 0,
  };
}

/** The result of a run whose interpreter died under it (crash, hang, disposal). */
export function interruptedResult(reason: string, durationMs: number): ExecutionResult {
  const error = {
    type: 'InterpreterRestarted',
    message: `${reason}; this agent's variables are gone (context is intact)`,
  };
  return {
    stdout: '',
    stderr: `${error.type}: ${error.message}\n`,
    error,
    final: null,
    variables: [],
    durationMs,
    truncated: false,
  };
}
