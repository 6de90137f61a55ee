// `rlm-studio convert`: a dataset in one format written in another: SkyRL rows (papers inside each
// row, for SkyRL training and eval) or our JSON lines (over a workspace paper set).
import { writeFile } from 'node:fs/promises';
import { Command, InvalidArgumentError } from 'commander';
import { loadDataset, paperLookup, toOurRow, toSkyrlRow } from '../../app/evidence/index.ts';
import { PaperLibrary } from '../../app/papers/index.ts';
import { wholeNumber } from './options.ts';
import { describeIssue } from './score-command.ts';
import { commandWorkspace } from './workspace.ts';

interface ConvertOptions {
  dataset: string;
  format: string;
  to: string;
  out: string;
  multiPaper?: boolean;
  limit?: number;
  maxTurns?: number;
}

function target(value: string): 'ours' | 'skyrl' {
  if (value !== 'ours' && value !== 'skyrl')
    throw new InvalidArgumentError('expected ours or skyrl');
  return value;
}

export function convertCommand(): Command {
  return new Command('convert')
    .description('write a dataset in another format (SkyRL rows or our JSON lines)')
    .requiredOption('--dataset <file>', 'the dataset file')
    .requiredOption('--format <format>', 'its format: ours, skyrl or qasper')
    .requiredOption('--to <format>', 'ours or skyrl', target)
    .requiredOption('--out <file>', 'the JSON-lines file to write')
    .option('--multi-paper', 'QASPER: each question over its paper and the 9 most similar')
    .option('--limit <n>', 'the first N questions only', wholeNumber)
    .option('--max-turns <n>', 'SkyRL rows: max_turns (10)', wholeNumber)
    .action(async (options: ConvertOptions, command: Command) => {
      const dataset = await loadDataset(options.dataset, options.format, {
        ...(options.multiPaper ? { multiPaper: true } : {}),
      });
      const questions =
        options.limit !== undefined ? dataset.questions.slice(0, options.limit) : dataset.questions;
      const needsWorkspace =
        options.to === 'skyrl' && questions.some((q) => !dataset.papers.has(q.set));
      const workspace = needsWorkspace ? commandWorkspace(command) : null;
      const library = workspace ? new PaperLibrary(workspace.db) : null;
      try {
        const papersOf = paperLookup(dataset, library);
        const rows = questions.map((question) =>
          options.to === 'skyrl'
            ? toSkyrlRow(question, papersOf(question), options.maxTurns ?? 10)
            : toOurRow(question),
        );
        await writeFile(options.out, rows.map((row) => JSON.stringify(row)).join('\n') + '\n');
        for (const issue of dataset.issues) console.error(describeIssue('dataset', issue));
        console.log(`wrote ${rows.length} ${options.to} rows to ${options.out}`);
        const sets = [...new Set(questions.map((q) => q.set))].filter((set) =>
          dataset.papers.has(set),
        );
        if (options.to === 'ours' && sets.length > 0)
          console.log(
            `its questions name the paper set(s) ${sets.join(', ')}: add the papers with \`rlm-studio ingest ${options.dataset} --set ${sets[0] ?? ''}\` (QASPER) before running them`,
          );
      } finally {
        await library?.dispose();
        workspace?.close();
      }
    });
}
