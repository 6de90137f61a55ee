// `rlm-studio fork RUN --agent ID --turn N (--code FILE | --response FILE)`: a new run from a stored
// one, the agent's turn N (1-based, as shown) replaced; earlier turns are rebuilt from the log and
// the model runs live after the fork (--model, default the parent's). --json prints its events.
import { readFileSync } from 'node:fs';
import { Command, InvalidArgumentError } from 'commander';
import { openEngine } from './engine.ts';
import type { GlobalOptions } from './options.ts';

function turnNumber(value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1)
    throw new InvalidArgumentError('turns are numbered from 1');
  return number;
}

interface ForkOptions {
  agent: string;
  turn: number;
  code?: string;
  response?: string;
  model?: string;
  json?: boolean;
}

export function forkCommand(): Command {
  return new Command('fork')
    .description("fork a stored run at an agent's turn with edited code or response")
    .argument('<run>', 'the run id')
    .requiredOption('--agent <id>', "the agent's tree path, like 0 or 0.1")
    .requiredOption('--turn <n>', 'the turn to replace (1 is the first)', turnNumber)
    .option('--code <file>', "a file with the turn's new code")
    .option('--response <file>', "a file with the turn's whole new response")
    .option('--model <spec>', 'the live model after the fork (default: the parent run’s)')
    .option('--json', 'print the new run’s events as JSON lines')
    .action(async (runId: string, options: ForkOptions, command: Command) => {
      if ((options.code === undefined) === (options.response === undefined))
        throw new InvalidArgumentError('give exactly one of --code FILE or --response FILE');
      const engine = await openEngine(command.optsWithGlobals<GlobalOptions>());
      const stop = engine.runs.onEvent((_id, event) => {
        if (options.json && event.kind !== 'model.delta') console.log(JSON.stringify(event));
      });
      try {
        const started = await engine.runs.fork({
          runId,
          agentId: options.agent,
          turn: options.turn - 1,
          code: options.code !== undefined ? readFileSync(options.code, 'utf8') : undefined,
          response:
            options.response !== undefined ? readFileSync(options.response, 'utf8') : undefined,
          model: options.model,
        });
        const outcome = await started.finished;
        if (!options.json) {
          console.log(`fork ${started.runId} of ${runId}: ${outcome.status}`);
          console.log(`answer: ${JSON.stringify(outcome.answer, null, 2)}`);
        }
        if (outcome.error)
          console.error(`rlm-studio: ${outcome.error.name}: ${outcome.error.message}`);
        if (outcome.status !== 'done') process.exitCode = 1;
      } finally {
        stop();
        await engine.close();
      }
    });
}
