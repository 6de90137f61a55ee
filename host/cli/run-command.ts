// `rlm-studio run`: one RLM run over a paper set, with a live compact tree on a terminal or the
// event stream as JSON lines (--json; the last line is the run.finished event).
import { Command, InvalidArgumentError } from 'commander';
import type { RunEvent } from '../../app/api/index.ts';
import type { StartRunRequest } from '../../app/rlm/index.ts';
import { applyRunEvent, emptyRunView } from '../../app/run-log/index.ts';
import { renderTree } from './tree-view.ts';
import { openEngine } from './engine.ts';
import type { GlobalOptions } from './options.ts';

function positiveInt(value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 0)
    throw new InvalidArgumentError('expected a whole number');
  return number;
}

interface RunCommandOptions {
  set: string;
  question: string;
  model: string;
  maxDepth?: number;
  maxTurns?: number;
  maxChildren?: number;
  maxAgents?: number;
  maxTokens?: number;
  maxSeconds?: number;
  maxInFlight?: number;
  codeBlocks?: 'first' | 'last' | 'all';
  prompts?: 'long' | 'short';
  json?: boolean;
}

export function runCommand(): Command {
  return new Command('run')
    .description('run a Recursive Language Model on a question over a paper set')
    .requiredOption('--set <name>', 'the paper set whose papers form the context')
    .requiredOption('--question <text>', 'the question')
    .requiredOption(
      '--model <spec>',
      'openai:MODEL, anthropic:MODEL, ollama:MODEL, openai-compatible:MODEL@URL, scripted:FILE, ...',
    )
    .option('--max-depth <n>', 'deepest level of children (root is 0)', positiveInt)
    .option('--max-turns <n>', 'turns per agent', positiveInt)
    .option('--max-children <n>', 'children per rlm_query_batched call', positiveInt)
    .option('--max-agents <n>', 'agents in the whole run', positiveInt)
    .option('--max-tokens <n>', 'tokens in the whole run', positiveInt)
    .option('--max-seconds <n>', 'wall time of the run', positiveInt)
    .option('--max-in-flight <n>', 'model calls in flight at once', positiveInt)
    .option('--code-blocks <policy>', 'which code blocks of a reply run: first, last or all')
    .option('--prompts <style>', 'system prompt: long or short')
    .option('--json', 'print the event stream as JSON lines')
    .action(runRun);
}

function runRequest(options: RunCommandOptions): StartRunRequest {
  return {
    set: options.set,
    question: options.question,
    model: options.model,
    budgets: {
      ...(options.maxDepth !== undefined ? { maxDepth: options.maxDepth } : {}),
      ...(options.maxTurns !== undefined ? { maxTurns: options.maxTurns } : {}),
      ...(options.maxChildren !== undefined ? { maxChildrenPerCall: options.maxChildren } : {}),
      ...(options.maxAgents !== undefined ? { maxAgents: options.maxAgents } : {}),
      ...(options.maxTokens !== undefined ? { maxTokens: options.maxTokens } : {}),
      ...(options.maxSeconds !== undefined ? { wallTimeMs: options.maxSeconds * 1000 } : {}),
      ...(options.maxInFlight !== undefined ? { maxInFlightCalls: options.maxInFlight } : {}),
    },
    ...(options.codeBlocks ? { codeBlocks: options.codeBlocks } : {}),
    ...(options.prompts ? { promptStyle: options.prompts } : {}),
  };
}

async function runRun(options: RunCommandOptions, command: Command): Promise<void> {
  const engine = await openEngine(command.optsWithGlobals<GlobalOptions>());
  const view = emptyRunView();
  const live = !options.json && process.stderr.isTTY;
  let drawn = 0;
  // The tree redrawn in place on stderr (cursor up over the last drawing), about 8 times a second.
  const draw = () => {
    const lines = renderTree(view, process.stderr.columns || 100);
    process.stderr.write(
      `${drawn > 0 ? `\x1b[${drawn}A` : ''}${lines.map((line) => `\x1b[2K${line}`).join('\n')}\n`,
    );
    drawn = lines.length;
  };
  const stop = engine.runs.onEvent((_runId, event: RunEvent) => {
    applyRunEvent(view, event);
    if (options.json && event.kind !== 'model.delta') console.log(JSON.stringify(event));
  });
  const timer = live ? setInterval(draw, 120) : null;
  try {
    const started = await engine.runs.start(runRequest(options));
    const onSignal = () => {
      started.cancel();
    };
    process.once('SIGINT', onSignal);
    const outcome = await started.finished;
    process.off('SIGINT', onSignal);
    if (timer) clearInterval(timer);
    if (live) draw();
    if (!options.json) {
      console.log(`run ${started.runId}: ${outcome.status}`);
      console.log(`answer: ${JSON.stringify(outcome.answer, null, 2)}`);
    }
    if (outcome.error) console.error(`rlm-studio: ${outcome.error.name}: ${outcome.error.message}`);
    if (outcome.status !== 'done') process.exitCode = 1;
  } finally {
    if (timer) clearInterval(timer);
    stop();
    await engine.close();
  }
}
