// The `rlm-studio` command tree: every subcommand, each in its own `*-command.ts` beside this file.
import { Command } from 'commander';
import { appVersion } from '../index.ts';
import { ingestCommand, paperCommand, papersCommand, reextractCommand } from './papers-commands.ts';
import { forkCommand } from './fork-command.ts';
import { runCommand } from './run-command.ts';
import { scoreCommand } from './score-command.ts';
import { evalCommand } from './eval-command.ts';
import { convertCommand } from './convert-command.ts';
import { exportCommand, importCommand, syntheticCommand } from './run-log-commands.ts';
import { serveCommand } from './serve-command.ts';
import { generateCommand } from './generate-command.ts';
import { trainJobCommand } from './train-job-command.ts';
import { trainCommand } from './train-command.ts';
import { clusterCommand } from './cluster-command.ts';
import { datasetCommand } from './dataset-command.ts';

export function buildProgram(): Command {
  const program = new Command('rlm-studio')
    .description(
      'RLM Studio: run, debug, score and fine-tune Recursive Language Models over paper sets',
    )
    .version(appVersion())
    .option(
      '--workspace <dir>',
      'workspace directory (default: $RLM_STUDIO_WORKSPACE, else the user data directory)',
    )
    .showHelpAfterError()
    .addCommand(serveCommand())
    .addCommand(ingestCommand())
    .addCommand(papersCommand())
    .addCommand(paperCommand())
    .addCommand(reextractCommand())
    .addCommand(runCommand())
    .addCommand(forkCommand())
    .addCommand(importCommand())
    .addCommand(exportCommand())
    .addCommand(syntheticCommand())
    .addCommand(scoreCommand())
    .addCommand(datasetCommand())
    .addCommand(evalCommand())
    .addCommand(convertCommand())
    .addCommand(generateCommand())
    .addCommand(trainCommand())
    .addCommand(trainJobCommand())
    .addCommand(clusterCommand());
  return program;
}
