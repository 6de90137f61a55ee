// The runs commands of app/api, answered by app/rlm's RunService, the run store and app/store/run-logs;
// every event of every run is forwarded to the front ends as runs.event, and imports and deletes
// as runs.changed.
import type { ApiEvent, CommandArgs, CommandResponse } from '../../app/api/index.ts';
import type { RunService } from '../../app/rlm/index.ts';
import type { LogFollows } from './follow-handlers.ts';
import {
  exportRuns,
  importRunLog,
  importRunLogPath,
  storeSyntheticRun,
  streamSyntheticRun,
} from '../../app/store/run-logs/index.ts';
import type { EvalStore, RunStore } from '../../app/store/index.ts';
import type { TextAnswers } from './command-host.ts';

type RunCommand =
  | 'runs.start'
  | 'runs.cancel'
  | 'runs.list'
  | 'runs.events'
  | 'runs.delete'
  | 'runs.export'
  | 'runs.import'
  | 'runs.importPath'
  | 'runs.fork'
  | 'runs.synthetic'
  | 'runs.evaluation';

export type RunHandlers = {
  [C in RunCommand]: (args: CommandArgs<C>) => Promise<CommandResponse<C>> | CommandResponse<C>;
};

export class RunStillRunningError extends Error {
  override readonly name = 'RunStillRunningError';
  constructor(runId: string) {
    super(`Run '${runId}' is still running; cancel it first, then delete it`);
  }
}

/**
 * runs.events as text: the stored log goes out as stored (4-5 MB for a 512-agent run), without a
 * parse of every row and a stringify of the whole answer; the same JSON as the handler's answer.
 */
export function runTextAnswers(store: RunStore): TextAnswers {
  return {
    'runs.events': ({ runId }) => {
      const run = JSON.stringify(store.get(runId));
      return `{"run":${run},"events":${store.eventsJson(runId)}}`;
    },
  };
}

/**
 * The runs.* commands. Longer than ~60 lines as a table: one short entry per command over the run
 * service and store; the command host dispatches by key.
 */
export function runHandlers(
  runs: RunService,
  store: RunStore,
  emit: (event: ApiEvent) => void,
  now: () => number = Date.now,
  evals: EvalStore | null = null,
  follows: LogFollows | null = null,
): RunHandlers {
  runs.onEvent((runId, event, seq) => {
    emit({ kind: 'runs.event', at: event.at, runId, seq, event });
  });
  /** Synthetic runs playing live, so runs.cancel reaches them too. */
  const synthetic = new Map<string, AbortController>();
  return {
    'runs.start': async ({ set, question, model, budgets, codeBlocks, prompts }) => {
      const started = await runs.start({
        set,
        question,
        model,
        ...(budgets ? { budgets } : {}),
        ...(codeBlocks ? { codeBlocks } : {}),
        ...(prompts ? { promptStyle: prompts } : {}),
      });
      // The run goes on after the answer; its end arrives as a runs.event (run.finished).
      void started.finished.catch(() => undefined);
      return { runId: started.runId };
    },
    'runs.cancel': ({ runId }) => {
      const live = synthetic.get(runId);
      live?.abort();
      return {
        canceled: runs.cancel(runId) || live !== undefined || (follows?.cancel(runId) ?? false),
      };
    },
    'runs.list': (filter) => ({ runs: store.list(filter) }),
    'runs.events': ({ runId }) => ({ run: store.get(runId), events: store.events(runId) }),
    'runs.delete': ({ runId }) => {
      if (runs.isActive(runId) || synthetic.has(runId) || follows?.isFollowing(runId))
        throw new RunStillRunningError(runId);
      const deleted = store.remove(runId);
      if (deleted) emit({ kind: 'runs.changed', at: now(), change: 'deleted', runIds: [runId] });
      return { deleted };
    },
    'runs.export': ({ runIds }) => ({
      text: exportRuns(store, runIds),
      fileName:
        runIds.length === 1
          ? `rlm-run-${(runIds[0] ?? '').slice(0, 8)}.jsonl`
          : `rlm-runs-${runIds.length}.jsonl`,
    }),
    'runs.fork': async ({ runId, agentId, turn, code, response, model }) => {
      const started = await runs.fork({ runId, agentId, turn, code, response, model });
      void started.finished.catch(() => undefined);
      return { runId: started.runId };
    },
    'runs.synthetic': ({ agents, turns, seed, live, eventsPerSecond }) => {
      if (!live) {
        const stored = storeSyntheticRun(store, { agents, turns, seed, startAt: now() });
        emit({ kind: 'runs.changed', at: now(), change: 'created', runIds: [stored.runId] });
        return stored;
      }
      const controller = new AbortController();
      const playing = streamSyntheticRun(
        store,
        (runId, event, seq) => {
          emit({ kind: 'runs.event', at: event.at, runId, seq, event });
        },
        { agents, turns, seed, eventsPerSecond, signal: controller.signal },
      );
      synthetic.set(playing.runId, controller);
      void playing.finished.finally(() => synthetic.delete(playing.runId));
      return { runId: playing.runId, events: playing.events };
    },
    'runs.evaluation': ({ runId }) => {
      store.get(runId);
      return { result: evals?.resultForRun(runId) ?? null };
    },
    'runs.importPath': ({ path, format }) => {
      const report = importRunLogPath(store, path, { format });
      emit({
        kind: 'runs.changed',
        at: now(),
        change: 'imported',
        runIds: report.logs.flatMap((log) => log.runs.map((run) => run.runId)),
      });
      return report;
    },
    'runs.import': ({ text, format, name }) => {
      const report = importRunLog(store, text, {
        format,
        source: name !== undefined ? `'${name}'` : 'the imported text',
      });
      emit({
        kind: 'runs.changed',
        at: now(),
        change: 'imported',
        runIds: report.runs.map((run) => run.runId),
      });
      return report;
    },
  };
}
