// `rlm-studio import` and `export`: run logs in and out of a workspace (app/store/run-logs). A line that
// fails to import is reported with its number and the exit status is 2; the rest still imports.
import { readFileSync, writeFileSync } from 'node:fs';
import { Command, InvalidArgumentError } from 'commander';
import {
  exportRuns,
  importRunLog,
  runLogFormats,
  storeSyntheticRun,
  type RunLogFormat,
} from '../../app/store/run-logs/index.ts';
import { openWorkspace, RunStore } from '../../app/store/index.ts';
import { workspaceOption, type GlobalOptions } from './options.ts';

function formatOption(value: string): RunLogFormat | 'auto' {
  if (value === 'auto' || (runLogFormats as readonly string[]).includes(value))
    return value as RunLogFormat | 'auto';
  throw new InvalidArgumentError(`expected auto, ${runLogFormats.join(', ')}`);
}

function withStore<T>(command: Command, work: (store: RunStore) => T): T {
  const workspace = openWorkspace(workspaceOption(command.optsWithGlobals<GlobalOptions>()));
  try {
    return work(new RunStore(workspace.db));
  } finally {
    workspace.close();
  }
}

export function importCommand(): Command {
  return new Command('import')
    .description(
      'import runs from a run log: an RLM Studio export, an alexzhang13/rlm log or a SkyRL eval dump',
    )
    .argument('<file>', 'the JSON-lines file')
    .option('--format <format>', 'auto, ours, rlm-log or skyrl', formatOption, 'auto')
    .option('--json', 'print one JSON object {format, runs, problems}')
    .action(
      (
        file: string,
        options: { format: RunLogFormat | 'auto'; json?: boolean },
        command: Command,
      ) => {
        const text = readFileSync(file, 'utf8');
        const report = withStore(command, (store) =>
          importRunLog(store, text, { format: options.format, source: `'${file}'` }),
        );
        if (options.json) console.log(JSON.stringify(report));
        else {
          for (const run of report.runs)
            console.log(
              `imported ${run.runId}  ${run.status}  ${run.agents} agents  ${run.turns} turns  ${JSON.stringify(run.question.slice(0, 60))}${run.renamedFrom ? ` (renamed from ${run.renamedFrom})` : ''}`,
            );
          console.log(`${report.runs.length} runs imported (${report.format})`);
        }
        for (const problem of report.problems)
          console.error(`rlm-studio: ${problem.name}: ${problem.message}`);
        if (report.problems.length > 0) process.exitCode = 2;
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
