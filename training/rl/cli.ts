// What training/rl adds to `rlm-studio` (installed by bin/rlm-studio.js): `train-job`.
import type { CliExtensions } from '../../app/cli/index.ts';
import { trainJobCommand } from './train-job-command.ts';

export function rlCliExtensions(): CliExtensions {
  return { commands: [trainJobCommand] };
}
