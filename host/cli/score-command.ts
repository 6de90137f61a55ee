// `rlm-studio score`: scores a file of predictions against a dataset without running anything:
// span location, character-span P/R/F1 and, for QASPER, the official Evidence-F1.
import { readFile } from 'node:fs/promises';
import { Command, InvalidArgumentError } from 'commander';
import {
  loadDataset,
  paperLookup,
  parsePredictions,
  PredictionFileError,
  RubricJudge,
  scoreDataset,
  type DatasetScore,
  type EvidenceQuestion,
  type EvidenceSpan,
  type JudgeVerdict,
  type QuestionScore,
  type RowIssue,
} from '../../app/evidence/index.ts';
import { openEngine } from './engine.ts';
import type { GlobalOptions } from './options.ts';
import { progressBar, silentProgress } from './progress.ts';

interface ScoreOptions {
  dataset: string;
  format: string;
  pred: string;
  json?: boolean;
  multiPaper?: boolean;
  threshold?: number;
  perQuestion?: boolean;
  judge?: string;
  concurrency?: number;
}

/** The rubric of every question (a missing prediction is 0, unjudged), `concurrency` at a time. */
async function judgeAll(
  judge: RubricJudge,
  questions: readonly EvidenceQuestion[],
  predictions: ReadonlyMap<string, readonly EvidenceSpan[]>,
  concurrency: number,
  onDone: (done: number) => void,
): Promise<Map<string, JudgeVerdict | null>> {
  const verdicts = new Map<string, JudgeVerdict | null>();
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let item = questions[next++]; item; item = questions[next++]) {
      const spans = predictions.get(item.id);
      verdicts.set(
        item.id,
        spans
          ? await judge.judge({
              question: item.question,
              gold: item.gold.map((span) => span.text),
              predicted: spans.map((span) => span.text),
            })
          : null,
      );
      onDone(verdicts.size);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, concurrency) }, worker));
  return verdicts;
}

function similarity(value: string): number {
  const number = Number(value);
  if (!(number > 0 && number <= 1)) throw new InvalidArgumentError('expected a number in (0, 1]');
  return number;
}

export function describeIssue(where: string, issue: RowIssue): string {
  return `${where}${issue.line !== undefined ? ` line ${issue.line}` : ''}${issue.id !== undefined ? ` (${issue.id})` : ''}: ${issue.reason}`;
}

export function questionRow(
  score: QuestionScore,
  verdict?: JudgeVerdict | null,
): Record<string, unknown> {
  return {
    ...(verdict !== undefined
      ? {
          rubric: verdict?.reward ?? 0,
          judge_failures: verdict?.failures ?? [],
        }
      : {}),
    id: score.id,
    predicted: score.predicted,
    span_precision: score.span?.precision ?? null,
    span_recall: score.span?.recall ?? null,
    span_f1: score.span?.f1 ?? null,
    evidence_f1: score.evidenceF1,
    spans: score.spans.length,
    unlocated: score.spans.filter((span) => !span.location).length,
  };
}

export function scoreFigures(summary: DatasetScore): Record<string, unknown> {
  return {
    n: summary.n,
    missing: summary.missing,
    span_scored: summary.spanScored,
    span_precision: summary.span_precision,
    span_recall: summary.span_recall,
    span_f1: summary.span_f1,
    span_pooled_precision: summary.pooled.precision,
    span_pooled_recall: summary.pooled.recall,
    span_pooled_f1: summary.pooled.f1,
    ...(summary.evidence_f1 !== null ? { evidence_f1: summary.evidence_f1 } : {}),
    unlocated_predicted: summary.unlocated.predicted,
    unlocated_gold: summary.unlocated.gold,
    located_by: summary.methods,
  };
}

export function printScore(summary: DatasetScore): void {
  const f = (x: number) => x.toFixed(4);
  console.log(
    `span P/R/F1 (mean over ${summary.spanScored} questions with gold): ${f(summary.span_precision)} / ${f(summary.span_recall)} / ${f(summary.span_f1)}`,
  );
  console.log(
    `span P/R/F1 pooled over all characters: ${f(summary.pooled.precision)} / ${f(summary.pooled.recall)} / ${f(summary.pooled.f1)}`,
  );
  if (summary.evidence_f1 !== null)
    console.log(`QASPER Evidence-F1 (official definition): ${f(summary.evidence_f1)}`);
  const methods = Object.entries(summary.methods)
    .map(([method, n]) => `${method} ${n}`)
    .join(', ');
  console.log(
    `spans located: ${methods || 'none'}; unlocated: ${summary.unlocated.predicted} predicted, ${summary.unlocated.gold} gold`,
  );
}

export function scoreCommand(): Command {
  return new Command('score')
    .description('score a file of predicted spans against a dataset (nothing is run)')
    .requiredOption('--dataset <file>', 'the dataset file')
    .requiredOption('--format <format>', 'ours, skyrl or qasper')
    .requiredOption('--pred <file>', 'JSON lines {"id", "spans": [{"paperId", "text"}]}')
    .option('--multi-paper', 'QASPER: each question over its paper and the 9 most similar')
    .option('--threshold <x>', 'lowest similarity of an approximate span match (0.85)', similarity)
    .option('--judge <spec>', 'also grade each prediction with the rubric judge (a model spec)')
    .option('--concurrency <n>', 'judge calls at once (4)', (value: string) => {
      const number = Number(value);
      if (!Number.isInteger(number) || number < 1)
        throw new InvalidArgumentError('expected a whole number of at least 1');
      return number;
    })
    .option('--per-question', 'with --json: add one row per question')
    .option('--json', 'print one JSON object')
    .action(runScore);
}

async function runScore(options: ScoreOptions, command: Command): Promise<void> {
  const started = performance.now();
  const dataset = await loadDataset(options.dataset, options.format, {
    ...(options.multiPaper ? { multiPaper: true } : {}),
  });
  const { predictions, issues } = parsePredictions(await readPredictions(options.pred));
  const needsWorkspace =
    options.judge !== undefined || dataset.questions.some((q) => !dataset.papers.has(q.set));
  const engine = needsWorkspace ? await openEngine(command.optsWithGlobals<GlobalOptions>()) : null;
  try {
    const { scores, summary } = scoreDataset(
      dataset.questions,
      predictions,
      paperLookup(dataset, engine?.papers ?? null),
      options.threshold !== undefined ? { threshold: options.threshold } : undefined,
    );
    const verdicts =
      options.judge !== undefined && engine
        ? await judgeDataset(engine, options, dataset.questions, predictions)
        : null;
    const rubrics = verdicts ? [...verdicts.values()].map((v) => v?.reward ?? 0) : [];
    const meanRubric =
      rubrics.length > 0 ? rubrics.reduce((a, b) => a + b, 0) / rubrics.length : null;
    const unknown = [...predictions.keys()].filter(
      (id) => !dataset.questions.some((q) => q.id === id),
    );
    const seconds = (performance.now() - started) / 1000;
    if (options.json) {
      console.log(
        JSON.stringify({
          dataset: dataset.name,
          format: dataset.format,
          ...scoreFigures(summary),
          ...(meanRubric !== null ? { mean_rubric: meanRubric } : {}),
          unknown_predictions: unknown.length,
          issues: { dataset: dataset.issues, predictions: issues },
          seconds,
          ...(options.perQuestion
            ? {
                questions: scores.map((score) =>
                  questionRow(score, verdicts ? (verdicts.get(score.id) ?? null) : undefined),
                ),
              }
            : {}),
        }),
      );
      return;
    }
    for (const issue of dataset.issues) console.error(describeIssue('dataset', issue));
    for (const issue of issues) console.error(describeIssue('predictions', issue));
    console.log(
      `${dataset.name} (${dataset.format}): ${summary.n} questions, ${predictions.size} predictions, ${summary.missing} questions without one, ${unknown.length} predictions for unknown ids`,
    );
    printScore(summary);
    if (meanRubric !== null)
      console.log(`mean rubric (judge ${options.judge ?? ''}): ${meanRubric.toFixed(4)}`);
    console.log(`scored in ${seconds.toFixed(2)} s`);
  } finally {
    await engine?.close();
  }
}

async function readPredictions(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    throw new PredictionFileError(
      path,
      (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : String(error),
    );
  }
}

/** The rubric judge's verdict on every prediction, with a progress bar unless --json. */
async function judgeDataset(
  engine: NonNullable<Awaited<ReturnType<typeof openEngine>>>,
  options: ScoreOptions,
  questions: EvidenceQuestion[],
  predictions: Parameters<typeof judgeAll>[2],
): Promise<Map<string, JudgeVerdict | null>> {
  const judge = new RubricJudge({ provider: await engine.providers(options.judge ?? '') });
  const bar = options.json ? silentProgress : progressBar();
  const verdicts = await judgeAll(
    judge,
    questions,
    predictions,
    options.concurrency ?? 4,
    (done) => {
      bar.update(done, questions.length, 'judging');
    },
  );
  bar.finish();
  return verdicts;
}
