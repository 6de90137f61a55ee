// `rlm-studio import` and `export`: run logs in and out of a workspace (app/store/run-logs). A line that
// fails to import is reported with its number and the exit status is 2; the rest still imports.
// `import --follow` reads a log another tool is still writing, printing its runs as they grow.
import { statSync, writeFileSync } from 'node:fs';
import { Command, InvalidArgumentError } from 'commander';
import type { RunEvent } from '../../app/api/index.ts';
import { foldRun } from '../../app/run-log/index.ts';
import {
  exportRuns,
  importRunLogPath,
  RunLogFollower,
  runLogFormats,
  storeSyntheticRun,
  type ImportedRunSummary,
  type ImportReport,
  type RunLogFormat,
} from '../../app/store/run-logs/index.ts';
import { RunStore } from '../../app/store/index.ts';
import { renderTree } from './tree-view.ts';
import { commandWorkspace } from './workspace.ts';

function formatOption(value: string): RunLogFormat | 'auto' {
  if (value === 'auto' || (runLogFormats as readonly string[]).includes(value))
    return value as RunLogFormat | 'auto';
  throw new InvalidArgumentError(`expected auto, ${runLogFormats.join(', ')}`);
}

function withStore<T>(command: Command, work: (store: RunStore) => T): T {
  const workspace = commandWorkspace(command);
  try {
    return work(new RunStore(workspace.db));
  } finally {
    workspace.close();
  }
}

function importLine(run: ImportedRunSummary): string {
  return `imported ${run.runId}  ${run.status}  ${run.agents} agents  ${run.turns} turns  ${JSON.stringify(run.question.slice(0, 60))}${run.renamedFrom ? ` (renamed from ${run.renamedFrom})` : ''}`;
}

function printProblems(problems: ImportReport['problems']): void {
  for (const problem of problems) console.error(`rlm-studio: ${problem.name}: ${problem.message}`);
  if (problems.length > 0) process.exitCode = 2;
}

/** A file, a session folder or a folder of logs, imported whole. */
function importPath(
  path: string,
  options: { format: RunLogFormat | 'auto'; json?: boolean },
  command: Command,
): void {
  const folder = statSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false;
  const report = withStore(command, (store) =>
    importRunLogPath(store, path, { format: options.format }),
  );
  if (options.json) console.log(JSON.stringify(folder ? report : report.logs[0]));
  else {
    for (const log of report.logs) {
      for (const run of log.runs) console.log(importLine(run));
      console.log(
        `${log.runs.length} runs imported (${log.format})${folder ? ` from ${log.source}` : ''}`,
      );
    }
  }
  printProblems(report.logs.flatMap((log) => log.problems));
  for (const failure of report.failures)
    console.error(`rlm-studio: ${failure.source}: ${failure.name}: ${failure.message}`);
  if (report.failures.length > 0) process.exitCode = 2;
}

/** What a followed run's event says on the terminal (a line per agent, turn and ending). */
function eventLine(runId: string, event: RunEvent): string | null {
  const run = runId.slice(0, 8);
  switch (event.kind) {
    case 'agent.spawned':
      return `${run}  ${event.agentId}  spawned${event.parentId === null ? '' : ` by ${event.parentId}`}  ${JSON.stringify(event.prompt.slice(0, 60))}`;
    case 'turn.started':
      return `${run}  ${event.agentId}  turn ${event.turn + 1}`;
    case 'final.answer':
      return `${run}  ${event.agentId}  answered ${JSON.stringify(JSON.stringify(event.answer).slice(0, 60))}`;
    case 'agent.failed':
      return `${run}  ${event.agentId}  failed: ${event.error.name}`;
    case 'run.finished':
      return `${run}  run ${event.status}`;
    default:
      return null;
  }
}

/**
 * Follows a log another tool is writing until its runs answer, the files stay quiet for
 * `idle` seconds, or Ctrl-C (open runs end interrupted). Exit 0 when every run answered, 3 when
 * the follow ended otherwise, 2 when lines were skipped.
 */
async function followPath(
  path: string,
  options: { format: RunLogFormat | 'auto'; json?: boolean; idle: number },
  command: Command,
): Promise<void> {
  const workspace = commandWorkspace(command);
  try {
    const store = new RunStore(workspace.db);
    const follower = new RunLogFollower(
      store,
      path,
      (runId, event) => {
        const line = options.json ? null : eventLine(runId, event);
        if (line) console.log(line);
      },
      { format: options.format, idleMs: options.idle * 1000 },
    );
    if (!options.json) console.error(`rlm-studio: following ${path} (Ctrl-C stops)`);
    const stop = () => follower.stop();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    const state = await follower.start();
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    if (options.json) console.log(JSON.stringify(state));
    else {
      for (const run of state.runs) {
        console.log('');
        for (const line of renderTree(foldRun(store.events(run.runId)))) console.log(line);
      }
      console.log(`${state.runs.length} runs followed; ended: ${state.ended ?? ''}`);
    }
    printProblems(state.problems);
    if (process.exitCode === undefined && state.ended !== 'answered') process.exitCode = 3;
  } finally {
    workspace.close();
  }
}

function seconds(value: string): number {
  const number = Number(value);
  if (!Number.isFinite(number) || number < 0.1 || number > 86_400)
    throw new InvalidArgumentError('expected seconds from 0.1 to 86400');
  return number;
}

export function importCommand(): Command {
  return new Command('import')
    .description(
      'import runs from a run log (an RLM Studio export, an alexzhang13/rlm log, a SkyRL eval dump, a DSPy RLM prediction), a nano-rlm session folder or a folder of them; --follow reads one another tool is still writing',
    )
    .argument('<path>', 'a log file, a nano-rlm session folder, or a folder of logs or sessions')
    .option('--format <format>', `auto, ${runLogFormats.join(', ')}`, formatOption, 'auto')
    .option(
      '--json',
      "print one JSON object: {format, runs, problems} for a file, {path, logs, failures} for a folder, the follow's end state with --follow",
    )
    .option('--follow', 'follow the log as it grows until its runs answer or it stays quiet')
    .option('--idle <seconds>', 'with --follow: end after this long without a change', seconds, 60)
    .action(
      async (
        path: string,
        options: { format: RunLogFormat | 'auto'; json?: boolean; follow?: boolean; idle: number },
        command: Command,
      ) => {
        if (options.follow) await followPath(path, options, command);
        else importPath(path, options, command);
      },
    );
}

export function exportCommand(): Command {
  return new Command('export')
    .description('export runs (summary and every event) as JSON lines that `import` reads back')
    .argument('<runs...>', 'run ids')
    .option('--out <file>', 'write to this file instead of standard output')
    .action((runs: string[], options: { out?: string }, command: Command) => {
      const text = withStore(command, (store) => exportRuns(store, runs));
      if (options.out) writeFileSync(options.out, text);
      else process.stdout.write(text);
    });
}

function count(value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1)
    throw new InvalidArgumentError('expected a whole number from 1');
  return number;
}

export function syntheticCommand(): Command {
  return new Command('synthetic')
    .description(
      'store a synthetic run (default 512 agents and 5,000 turns) for benchmarks and demos',
    )
    .option('--agents <n>', 'agents in the tree', count, 512)
    .option('--turns <n>', 'turns in all (at least one per agent)', count, 5000)
    .option('--seed <n>', 'the same seed gives the same run', count, 1)
    .option('--json', 'print {runId, events} as one JSON line')
    .action(
      (
        options: { agents: number; turns: number; seed: number; json?: boolean },
        command: Command,
      ) => {
        const stored = withStore(command, (store) => storeSyntheticRun(store, options));
        if (options.json) console.log(JSON.stringify(stored));
        else console.log(`stored synthetic run ${stored.runId} (${stored.events} events)`);
      },
    );
}
