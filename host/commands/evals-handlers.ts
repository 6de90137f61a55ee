// The evals commands of app/api, answered by app/evidence's EvalService and the eval store;
// progress and ends of every eval go to the front ends as eval.progress / eval.finished.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ApiEvent, CommandArgs, CommandResponse } from '../../app/api/index.ts';
import type { EvalService } from '../../app/evidence/index.ts';
import type { EvalStore } from '../../app/store/index.ts';

type EvalCommand = 'evals.datasets' | 'evals.list' | 'evals.start' | 'evals.get' | 'evals.cancel';

export type EvalHandlers = {
  [C in EvalCommand]: (args: CommandArgs<C>) => Promise<CommandResponse<C>> | CommandResponse<C>;
};

/** The QASPER test release beside a source checkout (tests, development); absent when packaged. */
const sharedQasper = fileURLToPath(
  new URL('../../../shared/data/qasper/qasper-test-and-evaluator-v0.3.tgz', import.meta.url),
);

export function evalHandlers(
  service: EvalService,
  store: EvalStore,
  emit: (event: ApiEvent) => void,
): EvalHandlers {
  service.onEvent(emit);
  return {
    'evals.datasets': () => {
      const used = store.datasets();
      const datasets: CommandResponse<'evals.datasets'>['datasets'] = [...used];
      if (existsSync(sharedQasper) && !used.some((d) => d.path === sharedQasper))
        datasets.push({
          path: sharedQasper,
          format: 'qasper',
          name: 'qasper-test-v0.3',
          lastUsed: null,
        });
      return { datasets };
    },
    'evals.list': () => ({ evals: store.list() }),
    'evals.start': async (request) => {
      const started = await service.start(request);
      // The eval goes on after the answer; its end arrives as eval.finished.
      void started.finished.catch(() => undefined);
      return { evalId: started.evalId, total: started.total, alreadyDone: started.alreadyDone };
    },
    'evals.get': ({ evalId }) => ({
      eval: store.get(evalId),
      report: service.report(evalId),
      results: store.results(evalId),
    }),
    'evals.cancel': ({ evalId }) => ({ canceled: service.cancel(evalId) }),
  };
}
