// `rlm-studio train-job DIR`: runs the training job in DIR (job.json, written by the app) until its
// last step, printing one line per step. SIGTERM or SIGINT pauses it after the current step, with a
// checkpoint; started again on the same folder it resumes (the app's Train view does both).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Command } from 'commander';
import { z } from 'zod';
import { TrainConfig, type StepMetrics } from '../../app/api/index.ts';
import type { TrainerStart, TrainJobResult } from '../../training/rl/index.ts';
import { composeEngine } from '../compose/compose.ts';

export function trainJobCommand(): Command {
  return new Command('train-job')
    .description('run a training job folder written by the Train view (pauses on SIGTERM)')
    .argument('<dir>', 'the job folder (holds job.json)')
    .option(
      '--start-on-stdin',
      "read the app's start message (a saved judge endpoint's spec and key) as JSON on stdin",
    )
    .action(async (dir: string, options: { startOnStdin?: boolean }) => {
      // Loaded here, not with the program: the rest of the CLI starts without training's modules.
      const { parseTrainerStart, runLocalJob, runToyJob, TOY_MODEL } =
        await import('../../training/rl/index.ts');
      const start: TrainerStart = options.startOnStdin
        ? parseTrainerStart(await readAll(process.stdin))
        : {};
      const text = await readFile(join(dir, 'job.json'), 'utf8');
      const { config } = z.object({ config: TrainConfig }).parse(JSON.parse(text));
      const controller = new AbortController();
      const pause = () => {
        controller.abort();
      };
      process.once('SIGTERM', pause);
      process.once('SIGINT', pause);
      const onStep = (m: StepMetrics) => {
        process.stdout.write(
          `step ${m.step}/${config.steps} reward ${m.rewardMean?.toFixed(3) ?? '-'} loss ${m.loss.toFixed(4)}\n`,
        );
      };
      let result: TrainJobResult;
      if (config.baseModel === TOY_MODEL) {
        result = await runToyJob({ config, dir, signal: controller.signal, onStep });
      } else {
        result = await runLocalJob({
          config,
          openEngine: (workspace, providers) =>
            composeEngine({ workspace, shell: 'serve', providers }),
          dir,
          signal: controller.signal,
          onStep,
          ...(start.judge ? { judge: start.judge } : {}),
        });
      }
      process.stdout.write(
        result.stopped ? `paused at step ${result.steps}\n` : `done: ${result.steps} steps\n`,
      );
    });
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  stream.setEncoding('utf8');
  for await (const chunk of stream) text += String(chunk);
  return text;
}
