// The trainer process's own entry: `train-job DIR` and nothing else of the CLI. What
// trainer-process.ts beside it starts, from the source tree or bundled beside the desktop shell
// (scripts/build-electron.ts: dist/electron/train-job.cjs). Errors end the process as the CLI's
// do: name and message on stderr, exit code 1.
import { trainJobCommand } from '../cli/train-job-command.ts';

trainJobCommand()
  .parseAsync(process.argv)
  .catch((error: unknown) => {
    const name = error instanceof Error ? error.name : 'Error';
    const message = error instanceof Error ? error.message : String(error);
    console.error(`train-job: ${name}: ${message}`);
    process.exitCode = 1;
  });
