// The default trainer launcher: `train-job DIR` in a child process of the same Node (or of Electron
// run as Node), so a training step never blocks the engine or the UI. Its entry is
// train-job-main.ts beside this file, bundled beside the desktop shell as train-job.cjs
// (scripts/build-electron.ts).
import { childEnv, defineChild, spawnChild } from '../../app/children/index.ts';
// The start message's module alone: training/rl's index would load the training engine here.
import type { TrainerStart } from '../../training/rl/trainer-start.ts';
import type { TrainerProcess } from '../commands/training-handlers.ts';

/** The trainer process: train-job-main.ts, or train-job.cjs beside the desktop bundle. */
export const trainJobChild = defineChild(import.meta.url, {
  source: './train-job-main.ts',
  bundled: 'train-job.cjs',
});

export function spawnTrainer(jobDir: string, start: TrainerStart): TrainerProcess {
  // The host's environment: a job's models read their API keys and base URLs from it
  // (app/models/create-provider.ts), the WebGPU backend its driver variables. What it cannot read
  // (a saved endpoint's key) comes on stdin, as one JSON object.
  const child = spawnChild(trainJobChild, [jobDir, '--start-on-stdin'], {
    env: childEnv(process.env),
    stdio: ['pipe', 'ignore', 'pipe'],
  });
  // A child that dies before reading it closes the pipe: its exit says why, not this write.
  child.stdin.on('error', () => undefined);
  child.stdin.end(JSON.stringify(start));
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-4000);
  });
  const listeners: ((code: number | null, stderrTail: string) => void)[] = [];
  let exit: { code: number | null } | undefined;
  const finish = (code: number | null) => {
    if (exit) return;
    exit = { code };
    const tail = stderr.trim().split('\n').slice(-3).join(' ').slice(-600);
    for (const listener of listeners) listener(code, tail);
  };
  child.on('exit', (code) => {
    finish(code);
  });
  child.on('error', (error) => {
    stderr += `\n${error.message}`;
    finish(null);
  });
  return {
    stop() {
      if (!exit) child.kill('SIGTERM');
    },
    onExit(listener) {
      if (exit) listener(exit.code, stderr);
      else listeners.push(listener);
    },
  };
}
