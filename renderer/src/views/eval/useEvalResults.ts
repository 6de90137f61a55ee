// One eval's summary, report and results, kept live: eval.progress adds each finished question's
// row as it arrives, eval.finished reloads the whole (status and report).
import { useEffect, useState } from 'react';
import type { CommandResponse } from '../../../../app/api/index.ts';
import { useApi } from '../../api/ApiContext.tsx';
import { useApiEvent } from '../../api/useApiEvent.ts';
import { describeFailure, type Failure } from '../papers/failure.ts';
import { upsertResult } from './scores-table.ts';

export type EvalDetail = CommandResponse<'evals.get'>;

export function useEvalResults(evalId: string): {
  detail: EvalDetail | null;
  failure: Failure | null;
} {
  const api = useApi();
  const [detail, setDetail] = useState<{ id: string; value: EvalDetail } | null>(null);
  const [failure, setFailure] = useState<{ id: string; value: Failure } | null>(null);
  const [generation, setGeneration] = useState(0);

  useEffect(() => {
    let live = true;
    api.call('evals.get', { evalId }).then(
      (value) => {
        if (live) setDetail({ id: evalId, value });
      },
      (error: unknown) => {
        if (live) setFailure({ id: evalId, value: describeFailure(error) });
      },
    );
    return () => {
      live = false;
    };
  }, [api, evalId, generation]);

  useApiEvent('eval.progress', (event) => {
    if (event.evalId !== evalId) return;
    setDetail((current) =>
      current?.id === evalId
        ? {
            id: evalId,
            value: {
              ...current.value,
              eval: {
                ...current.value.eval,
                done: current.value.eval.done + (event.result.status === 'done' ? 1 : 0),
                failed: current.value.eval.failed + (event.result.status === 'failed' ? 1 : 0),
              },
              results: upsertResult(current.value.results, event.result),
            },
          }
        : current,
    );
  });
  useApiEvent('eval.finished', (event) => {
    if (event.evalId === evalId) setGeneration((n) => n + 1);
  });

  return {
    detail: detail?.id === evalId ? detail.value : null,
    failure: failure?.id === evalId ? failure.value : null,
  };
}
