// Batch evaluation: the RLM on every question of a dataset (through app/rlm's RunService, as
// `rlm-studio run` does), at most `concurrency` at once, each answer located and scored (span F1,
// QASPER Evidence-F1, the rubric judge when one is given) and stored as one row. The eval's id is a
// hash of what defines it (dataset, format, variant, model, judge), so starting it again resumes:
// questions with a row are skipped, the others run. Canceled questions leave no row.
import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import type { ApiEvent, EvalReport, EvalStartRequest, EvalStatus } from '../api/index.ts';
import type { Provider } from '../models/index.ts';
import type { PaperLibrary } from '../papers/index.ts';
import type { StartedRun, StartRunRequest } from '../rlm/index.ts';
import type { EvalStore, RunStore } from '../store/index.ts';
import { evalReport } from './eval-report.ts';
import { RubricJudge } from './judge.ts';
import { loadDataset, paperLookup } from './load.ts';
import type { PaperIndex } from './locate.ts';
import { materialiseDatasetPapers } from './materialise.ts';
import type { EvidenceDataset, EvidencePaper, EvidenceQuestion } from './question.ts';
import { errorInfo, runQuestion, type QuestionRunContext } from './question-run.ts';

export interface EvalDependencies {
  papers: PaperLibrary;
  runs: { start(request: StartRunRequest): Promise<StartedRun>; warm?(): Promise<void> };
  runStore: RunStore;
  evals: EvalStore;
  providers: (spec: string) => Provider | Promise<Provider>;
  now?: () => number;
}

export type EvalEvent = Extract<ApiEvent, { kind: 'eval.progress' | 'eval.finished' }>;

export interface StartedEval {
  evalId: string;
  total: number;
  alreadyDone: number;
  dataset: EvidenceDataset;
  finished: Promise<{ status: EvalStatus; report: EvalReport }>;
  cancel(): void;
}

export function evalId(request: EvalStartRequest): string {
  const key = JSON.stringify([
    resolve(request.dataset),
    request.format,
    request.multiPaper ?? false,
    request.model,
    request.judge ?? null,
  ]);
  return `eval-${createHash('sha256').update(key).digest('hex').slice(0, 16)}`;
}

export class EvalService {
  readonly #deps: EvalDependencies;
  readonly #active = new Map<string, StartedEval>();
  readonly #listeners = new Set<(event: EvalEvent) => void>();

  constructor(deps: EvalDependencies) {
    this.#deps = deps;
  }

  onEvent(listener: (event: EvalEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #emit(event: EvalEvent): void {
    for (const listener of this.#listeners) listener(event);
  }

  #now(): number {
    return (this.#deps.now ?? Date.now)();
  }

  async start(request: EvalStartRequest): Promise<StartedEval> {
    const { dataset, questions, papersOf, id, judge } = await this.#prepare(request);
    const { evals } = this.#deps;
    if (request.fresh) evals.clearResults(id);
    this.#open(id, request, dataset, questions.length);
    const finishedIds = evals.finishedQuestions(id);
    const pending = questions
      .map((question, seq) => ({ question, seq }))
      .filter(({ question }) => !finishedIds.has(question.id));
    const controller = new AbortController();
    const activeRuns = new Set<StartedRun>();
    const context: QuestionRunContext = {
      evalId: id,
      request,
      runs: this.#deps.runs,
      runStore: this.#deps.runStore,
      judge,
      papersOf,
      indexes: new Map<EvidencePaper, PaperIndex>(),
      signal: controller.signal,
      activeRuns,
      now: () => this.#now(),
    };
    const startedEval: StartedEval = {
      evalId: id,
      total: questions.length,
      alreadyDone: questions.length - pending.length,
      dataset,
      finished: this.#runAll(context, dataset, questions.length, pending),
      cancel: () => {
        controller.abort();
        for (const run of activeRuns) run.cancel();
      },
    };
    this.#active.set(id, startedEval);
    return startedEval;
  }

  /** Everything that can fail before a question runs: the dataset, its papers, both models. */
  async #prepare(request: EvalStartRequest) {
    const dataset = await loadDataset(request.dataset, request.format, {
      ...(request.multiPaper ? { multiPaper: true } : {}),
    });
    const questions =
      request.limit !== undefined ? dataset.questions.slice(0, request.limit) : dataset.questions;
    // Every question's papers must be there before anything runs (a missing set is a named error).
    await materialiseDatasetPapers(this.#deps.papers, dataset, request.dataset);
    const papersOf = paperLookup(dataset, this.#deps.papers);
    for (const question of questions) papersOf(question);
    const id = evalId(request);
    if (this.#active.has(id)) throw new EvalAlreadyRunningError(id);
    // Both providers are made first, so a bad spec fails before anything runs.
    await this.#deps.providers(request.model);
    const judge = request.judge
      ? new RubricJudge({ provider: await this.#deps.providers(request.judge) })
      : null;
    return { dataset, questions, papersOf, id, judge };
  }

  #open(id: string, request: EvalStartRequest, dataset: EvidenceDataset, total: number): void {
    this.#deps.evals.open({
      id,
      datasetPath: resolve(request.dataset),
      datasetName: dataset.name,
      format: request.format,
      options: {
        ...(request.multiPaper !== undefined ? { multiPaper: request.multiPaper } : {}),
        ...(request.limit !== undefined ? { limit: request.limit } : {}),
        ...(request.concurrency !== undefined ? { concurrency: request.concurrency } : {}),
        ...(request.threshold !== undefined ? { threshold: request.threshold } : {}),
        ...(request.budgets !== undefined ? { budgets: request.budgets } : {}),
      },
      model: request.model,
      judge: request.judge ?? null,
      total,
    });
  }

  /** Runs the pending questions, `concurrency` at a time, then writes and announces the end. */
  async #runAll(
    context: QuestionRunContext,
    dataset: EvidenceDataset,
    total: number,
    pending: { question: EvidenceQuestion; seq: number }[],
  ): Promise<{ status: EvalStatus; report: EvalReport }> {
    const { evals } = this.#deps;
    const id = context.evalId;
    let done = total - pending.length;
    let next = 0;
    const worker = async (): Promise<void> => {
      while (!context.signal.aborted) {
        const item = pending[next++];
        if (!item) return;
        const result = await runQuestion(context, item.question, item.seq);
        if (!result) continue; // canceled: no row, a resume runs it again
        evals.saveResult(result);
        done++;
        this.#emit({ kind: 'eval.progress', at: this.#now(), evalId: id, done, total, result });
      }
    };
    const concurrency = Math.max(1, context.request.concurrency ?? 4);
    let status: EvalStatus = 'done';
    let failure: { name: string; message: string } | null = null;
    try {
      // The sandbox boots once, before the clock of any question starts.
      if (pending.length > 0) await this.#deps.runs.warm?.();
      await Promise.all(Array.from({ length: Math.min(concurrency, pending.length) }, worker));
      if (context.signal.aborted) status = 'canceled';
    } catch (error) {
      status = 'failed';
      failure = errorInfo(error);
    }
    evals.finish(id, status, failure, this.#now());
    const report = evalReport(evals.results(id), total, dataset.hasEvidenceF1);
    this.#active.delete(id);
    this.#emit({ kind: 'eval.finished', at: this.#now(), evalId: id, status, report });
    return { status, report };
  }

  cancel(id: string): boolean {
    const active = this.#active.get(id);
    active?.cancel();
    return active !== undefined;
  }

  report(id: string): EvalReport {
    const summary = this.#deps.evals.get(id);
    const results = this.#deps.evals.results(id);
    return evalReport(results, summary.total, summary.format === 'qasper');
  }

  async dispose(): Promise<void> {
    const running = [...this.#active.values()];
    for (const active of running) active.cancel();
    await Promise.allSettled(running.map((active) => active.finished));
  }
}

export class EvalAlreadyRunningError extends Error {
  override readonly name = 'EvalAlreadyRunningError';
  constructor(id: string) {
    super(`The eval '${id}' is already running; wait for it or cancel it first`);
  }
}
