// The default trainer launcher: `rlm-studio train-job DIR` in a child process of the same Node (or
// of Electron run as Node), so a training step never blocks the engine or the UI. The command
// itself comes from training/ (installed into the CLI by bin/rlm-studio.js).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { TrainerProcess } from './training-handlers.ts';

const launcherPath = fileURLToPath(new URL('../../bin/rlm-studio.js', import.meta.url));

export function spawnTrainer(jobDir: string): TrainerProcess {
  const child = spawn(process.execPath, [launcherPath, 'train-job', jobDir], {
    env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
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
