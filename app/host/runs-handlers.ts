// The runs commands of app/api, answered by app/rlm's RunService and the run store; every event
// of every run is forwarded to the front ends as runs.event.
import type { ApiEvent, CommandArgs, CommandResponse } from '../api/index.ts';
import type { RunService } from '../rlm/index.ts';
import type { RunStore } from '../store/index.ts';

type RunCommand = 'runs.start' | 'runs.cancel' | 'runs.list' | 'runs.events';

export type RunHandlers = {
  [C in RunCommand]: (args: CommandArgs<C>) => Promise<CommandResponse<C>> | CommandResponse<C>;
};

export function runHandlers(
  runs: RunService,
  store: RunStore,
  emit: (event: ApiEvent) => void,
): RunHandlers {
  runs.onEvent((runId, event) => {
    emit({ kind: 'runs.event', at: event.at, runId, event });
  });
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
    'runs.cancel': ({ runId }) => ({ canceled: runs.cancel(runId) }),
    'runs.list': (filter) => ({ runs: store.list(filter) }),
    'runs.events': ({ runId }) => ({ run: store.get(runId), events: store.events(runId) }),
  };
}
