// Teacher traces and SFT sets behind the api, shared by the Datasets view and `rlm-studio dataset`:
// a dataset's split written as a file in the workspace (what a teacher eval and a training job
// read), a teacher RLM over it through the eval machinery (resumable: the eval's id hashes the
// file's path), and an SFT set made from that eval's runs through the write-up's filter and a cap.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import type { CommandArgs, CommandResponse, SftSetRun } from '../../app/api/index.ts';
import { exportDataset, type EvalService } from '../../app/evidence/index.ts';
import type { PaperLibrary } from '../../app/papers/index.ts';
import { DatasetStore, SftSetStore, type EvalStore, type RunStore } from '../../app/store/index.ts';
// The filter's module alone: training/rl's index would load the training engine.
import { sftRejection } from '../../training/rl/trajectory.ts';

type SftCommand =
  | 'datasets.splitFile'
  | 'datasets.traces'
  | 'sftSets.list'
  | 'sftSets.get'
  | 'sftSets.make'
  | 'sftSets.delete';

export type SftHandlers = {
  [C in SftCommand]: (args: CommandArgs<C>) => Promise<CommandResponse<C>> | CommandResponse<C>;
};

export interface SftDeps {
  db: DatabaseSync;
  workspaceDir: string;
  papers: PaperLibrary;
  evals: EvalService;
  evalStore: EvalStore;
  runStore: RunStore;
  now: () => number;
}

/**
 * A dataset's split as our JSON lines at <workspace>/datasets/<id>-<split>.jsonl, written again on
 * every call (the same path, so an eval over it resumes and a job's config names one file).
 */
export function writeSplitFile(
  workspaceDir: string,
  store: DatasetStore,
  papers: PaperLibrary,
  dataset: string,
  split: 'train' | 'validation',
): { path: string; rows: number } {
  const summary = store.get(dataset);
  const folder = join(workspaceDir, 'datasets');
  mkdirSync(folder, { recursive: true });
  const path = join(folder, `${summary.id}-${split}.jsonl`);
  const text = exportDataset(store, papers, dataset, { format: 'ours', split });
  writeFileSync(path, text);
  return { path, rows: text.split('\n').filter(Boolean).length };
}

/**
 * A teacher RLM over a dataset's split as an eval of its split file (the eval's id hashes the
 * file's path, so the same request resumes it). The eval goes on after this answers.
 */
export async function startTeacherTraces(
  deps: Pick<SftDeps, 'workspaceDir' | 'papers' | 'evals'>,
  datasets: DatasetStore,
  request: CommandArgs<'datasets.traces'>,
) {
  const { dataset, teacher, split, limit, concurrency, maxTurns } = request;
  const { path } = writeSplitFile(deps.workspaceDir, datasets, deps.papers, dataset, split);
  return deps.evals.start({
    dataset: path,
    format: 'ours',
    model: teacher,
    ...(limit !== undefined ? { limit } : {}),
    ...(concurrency !== undefined ? { concurrency } : {}),
    ...(maxTurns !== undefined ? { budgets: { maxTurns } } : {}),
  });
}

/** Each of an eval's results through the filter, in order; accepted ones beyond `cap` are left out. */
function sftRuns(evalStore: EvalStore, runStore: RunStore, evalId: string, cap: number) {
  const runs: SftSetRun[] = [];
  let accepted = 0;
  for (const result of evalStore.results(evalId)) {
    const reason = result.runId
      ? sftRejection(runStore.events(result.runId), result.spanF1 ?? 0)
      : 'the question has no run';
    const over = reason === null && accepted >= cap;
    if (reason === null && !over) accepted++;
    runs.push({
      runId: result.runId,
      questionId: result.questionId,
      spanF1: result.spanF1,
      accepted: reason === null && !over,
      reason: reason ?? (over ? `over the cap of ${cap} runs` : null),
    });
  }
  return runs;
}

export function sftHandlers(deps: SftDeps): SftHandlers {
  const datasets = new DatasetStore(deps.db);
  const sets = new SftSetStore(deps.db);
  return {
    'datasets.splitFile': ({ dataset, split }) =>
      writeSplitFile(deps.workspaceDir, datasets, deps.papers, dataset, split),
    'datasets.traces': async (request) => {
      const started = await startTeacherTraces(deps, datasets, request);
      // The eval goes on after the answer; its end arrives as eval.finished.
      void started.finished.catch(() => undefined);
      return { evalId: started.evalId, total: started.total, alreadyDone: started.alreadyDone };
    },
    'sftSets.list': ({ dataset }) => ({
      sets: sets.list(dataset === undefined ? undefined : datasets.get(dataset).name),
    }),
    'sftSets.get': ({ set }) => ({ set: sets.get(set) }),
    'sftSets.make': ({ dataset, evalId, name, cap }) => {
      const summary = datasets.get(dataset);
      deps.evalStore.get(evalId);
      return {
        set: sets.create({
          name,
          dataset: summary.name,
          evalId,
          cap,
          createdAt: deps.now(),
          runs: sftRuns(deps.evalStore, deps.runStore, evalId, cap),
        }),
      };
    },
    'sftSets.delete': ({ set }) => {
      sets.delete(set);
      return { deleted: true };
    },
  };
}
