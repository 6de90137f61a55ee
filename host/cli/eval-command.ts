// `rlm-studio eval`: the RLM over every question of a dataset with a concurrency limit and a
// progress bar, each answer scored and stored; started again with the same dataset, model and
// judge it resumes (finished questions are skipped). Prints the report, or one JSON object.
import { Command, InvalidArgumentError } from 'commander';
import type { EvalReport, EvalResult, EvalStartRequest } from '../../app/api/index.ts';
import { isDatasetFormat, UnknownDatasetFormatError } from '../../app/evidence/index.ts';
import { openEngine } from './engine.ts';
import { wholeNumber, type GlobalOptions } from './options.ts';
import { progressBar, silentProgress } from './progress.ts';

interface EvalCommandOptions {
  dataset: string;
  format: string;
  model: string;
  judge?: string;
  limit?: number;
  concurrency?: number;
  multiPaper?: boolean;
  threshold?: number;
  fresh?: boolean;
  maxTurns?: number;
  maxDepth?: number;
  maxSeconds?: number;
  json?: boolean;
}

function similarity(value: string): number {
  const number = Number(value);
  if (!(number > 0 && number <= 1)) throw new InvalidArgumentError('expected a number in (0, 1]');
  return number;
}

const fixed = (value: number | null, digits = 4): string =>
  value === null ? '-' : value.toFixed(digits);

export function reportLines(report: EvalReport): string[] {
  return [
    `questions: ${report.done + report.failed}/${report.total} finished (${report.failed} failed)`,
    `mean rubric: ${fixed(report.meanRubric)}`,
    `mean span F1: ${fixed(report.meanSpanF1)}`,
    ...(report.evidenceF1 !== null ? [`QASPER Evidence-F1: ${fixed(report.evidenceF1)}`] : []),
    `latency per question: median ${fixed(report.latencyMedianMs === null ? null : report.latencyMedianMs / 1000, 2)} s, p90 ${fixed(report.latencyP90Ms === null ? null : report.latencyP90Ms / 1000, 2)} s`,
    `tokens: ${report.inputTokens} in, ${report.outputTokens} out; cost: ${report.costUsd === null ? 'unknown' : `$${report.costUsd.toFixed(4)}`}`,
  ];
}

function questionRow(result: EvalResult): Record<string, unknown> {
  return {
    id: result.questionId,
    status: result.status,
    run_id: result.runId,
    rubric: result.rubric,
    span_precision: result.spanPrecision,
    span_recall: result.spanRecall,
    span_f1: result.spanF1,
    evidence_f1: result.evidenceF1,
    latency_ms: result.latencyMs,
    input_tokens: result.inputTokens,
    output_tokens: result.outputTokens,
    cost_usd: result.costUsd,
    spans: result.spans.length,
    unlocated: result.spans.filter((span) => !span.location).length,
    error: result.error,
    judge_failures: result.judge?.failures ?? [],
  };
}

export function evalCommand(): Command {
  return new Command('eval')
    .description('run the RLM on every question of a dataset and score it (resumable)')
    .requiredOption('--dataset <file>', 'the dataset file (QASPER: the .json or the release .tgz)')
    .requiredOption('--format <format>', 'ours, skyrl or qasper')
    .requiredOption('--model <spec>', 'the RLM: openai:MODEL, anthropic:MODEL, scripted:FILE, ...')
    .option('--judge <spec>', 'the rubric judge model (no rubric without one)')
    .option('--limit <n>', 'the first N questions only', wholeNumber)
    .option('--concurrency <n>', 'questions running at once (4)', wholeNumber)
    .option('--multi-paper', 'QASPER: each question over its paper and the 9 most similar')
    .option('--threshold <x>', 'lowest similarity of an approximate span match (0.85)', similarity)
    .option('--fresh', 'drop stored results of this eval and start over')
    .option('--max-turns <n>', 'turns per agent', wholeNumber)
    .option('--max-depth <n>', 'deepest level of children', wholeNumber)
    .option('--max-seconds <n>', 'wall time per question', wholeNumber)
    .option('--json', 'print one JSON object with the report and a row per question')
    .action(runEval);
}

function evalRequest(
  options: EvalCommandOptions & { format: EvalStartRequest['format'] },
): EvalStartRequest {
  const budgets = {
    ...(options.maxTurns !== undefined ? { maxTurns: options.maxTurns } : {}),
    ...(options.maxDepth !== undefined ? { maxDepth: options.maxDepth } : {}),
    ...(options.maxSeconds !== undefined ? { wallTimeMs: options.maxSeconds * 1000 } : {}),
  };
  return {
    dataset: options.dataset,
    format: options.format,
    model: options.model,
    ...(options.judge ? { judge: options.judge } : {}),
    ...(options.limit !== undefined ? { limit: options.limit } : {}),
    ...(options.concurrency !== undefined ? { concurrency: options.concurrency } : {}),
    ...(options.multiPaper ? { multiPaper: true } : {}),
    ...(options.threshold !== undefined ? { threshold: options.threshold } : {}),
    ...(options.fresh ? { fresh: true } : {}),
    ...(Object.keys(budgets).length > 0 ? { budgets } : {}),
  };
}

async function runEval(options: EvalCommandOptions, command: Command): Promise<void> {
  if (!isDatasetFormat(options.format)) throw new UnknownDatasetFormatError(options.format);
  const request = evalRequest({ ...options, format: options.format });
  const engine = await openEngine(command.optsWithGlobals<GlobalOptions>());
  const bar = options.json ? silentProgress : progressBar();
  const stop = engine.evals.onEvent((event) => {
    if (event.kind === 'eval.progress')
      bar.update(event.done, event.total, event.result.questionId);
  });
  try {
    const started = await engine.evals.start(request);
    for (const issue of started.dataset.issues)
      console.error(
        `dataset${issue.line !== undefined ? ` line ${issue.line}` : ''}${issue.id !== undefined ? ` (${issue.id})` : ''}: ${issue.reason}`,
      );
    if (!options.json)
      console.error(
        `eval ${started.evalId}: ${started.total} questions, ${started.alreadyDone} already done`,
      );
    bar.update(started.alreadyDone, started.total, 'starting');
    const onSignal = () => {
      started.cancel();
    };
    process.once('SIGINT', onSignal);
    const { status, report } = await started.finished;
    process.off('SIGINT', onSignal);
    bar.finish();
    if (options.json) {
      console.log(
        JSON.stringify({
          eval_id: started.evalId,
          status,
          already_done: started.alreadyDone,
          n: report.total,
          done: report.done,
          failed: report.failed,
          mean_rubric: report.meanRubric,
          mean_span_f1: report.meanSpanF1,
          evidence_f1: report.evidenceF1,
          latency_median_ms: report.latencyMedianMs,
          latency_p90_ms: report.latencyP90Ms,
          input_tokens: report.inputTokens,
          output_tokens: report.outputTokens,
          cost_usd: report.costUsd,
          questions: engine.evalStore.results(started.evalId).map(questionRow),
        }),
      );
    } else {
      console.log(`eval ${started.evalId}: ${status}`);
      for (const line of reportLines(report)) console.log(line);
    }
    if (status !== 'done') process.exitCode = 1;
  } finally {
    bar.finish();
    stop();
    await engine.close();
  }
}
