// `rlm-studio score`: scores a file of predictions against a dataset without running anything:
// span location, character-span P/R/F1 and, for QASPER, the official Evidence-F1.
import { readFile } from 'node:fs/promises';
import { Command, InvalidArgumentError } from 'commander';
import {
  loadDataset,
  paperLookup,
  parsePredictions,
  PredictionFileError,
  scoreDataset,
  type DatasetScore,
  type QuestionScore,
  type RowIssue,
} from '../evidence/index.ts';
import { PaperLibrary } from '../papers/index.ts';
import { openWorkspace } from '../store/index.ts';
import { workspaceOption, type GlobalOptions } from './options.ts';

interface ScoreOptions {
  dataset: string;
  format: string;
  pred: string;
  json?: boolean;
  multiPaper?: boolean;
  threshold?: number;
  perQuestion?: boolean;
}

function similarity(value: string): number {
  const number = Number(value);
  if (!(number > 0 && number <= 1)) throw new InvalidArgumentError('expected a number in (0, 1]');
  return number;
}

export function describeIssue(where: string, issue: RowIssue): string {
  return `${where}${issue.line !== undefined ? ` line ${issue.line}` : ''}${issue.id !== undefined ? ` (${issue.id})` : ''}: ${issue.reason}`;
}

export function questionRow(score: QuestionScore): Record<string, unknown> {
  return {
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
    .option('--per-question', 'with --json: add one row per question')
    .option('--json', 'print one JSON object')
    .action(async (options: ScoreOptions, command: Command) => {
      const started = performance.now();
      const dataset = await loadDataset(options.dataset, options.format, {
        ...(options.multiPaper ? { multiPaper: true } : {}),
      });
      let text: string;
      try {
        text = await readFile(options.pred, 'utf8');
      } catch (error) {
        throw new PredictionFileError(
          options.pred,
          (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : String(error),
        );
      }
      const { predictions, issues } = parsePredictions(text);
      const needsWorkspace = dataset.questions.some((q) => !dataset.papers.has(q.set));
      const workspace = needsWorkspace
        ? openWorkspace(workspaceOption(command.optsWithGlobals<GlobalOptions>()))
        : null;
      const library = workspace ? new PaperLibrary(workspace.db) : null;
      try {
        const { scores, summary } = scoreDataset(
          dataset.questions,
          predictions,
          paperLookup(dataset, library),
          options.threshold !== undefined ? { threshold: options.threshold } : undefined,
        );
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
              unknown_predictions: unknown.length,
              issues: { dataset: dataset.issues, predictions: issues },
              seconds,
              ...(options.perQuestion ? { questions: scores.map(questionRow) } : {}),
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
        console.log(`scored in ${seconds.toFixed(2)} s`);
      } finally {
        await library?.dispose();
        workspace?.close();
      }
    });
}
