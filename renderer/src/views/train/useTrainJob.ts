// A training job's logged steps, loaded once and then extended by train.step events as they come.
import { useEffect, useRef, useState } from 'react';
import type { StepMetrics, TrainJob } from '../../../../app/api/index.ts';
import { useApi } from '../../api/ApiContext.tsx';
import { useApiEvent } from '../../api/useApiEvent.ts';
import { describeFailure, type Failure } from '../papers/failure.ts';
import { appendStep } from './series.ts';

export interface TrainJobState {
  job: TrainJob | null;
  metrics: StepMetrics[];
  failure: Failure | null;
}

export function useTrainJob(jobId: string | null): TrainJobState {
  const api = useApi();
  const [state, setState] = useState<TrainJobState>({ job: null, metrics: [], failure: null });

  useEffect(() => {
    setState({ job: null, metrics: [], failure: null });
    if (jobId === null) return;
    let live = true;
    api.call('train.metrics', { jobId }).then(
      ({ job, metrics }) => {
        if (live) setState({ job, metrics, failure: null });
      },
      (error: unknown) => {
        if (live) setState({ job: null, metrics: [], failure: describeFailure(error) });
      },
    );
    return () => {
      live = false;
    };
  }, [api, jobId]);

  // Steps can arrive by the hundred per second (a fast toy job): they are applied once per frame.
  const pending = useRef<StepMetrics[]>([]);
  const frame = useRef<number | null>(null);
  useEffect(
    () => () => {
      if (frame.current !== null) cancelAnimationFrame(frame.current);
      pending.current = [];
    },
    [jobId],
  );
  useApiEvent('train.step', (event) => {
    if (event.jobId !== jobId) return;
    pending.current.push(event.metrics);
    if (frame.current !== null) return;
    frame.current = requestAnimationFrame(() => {
      frame.current = null;
      const arrived = pending.current;
      pending.current = [];
      setState((current) => {
        let metrics = current.metrics;
        for (const line of arrived) {
          metrics = appendStep(metrics, line);
        }
        return { ...current, metrics };
      });
    });
  });
  useApiEvent('train.jobChanged', (event) => {
    if (event.job.id === jobId) setState((current) => ({ ...current, job: event.job }));
  });
  return state;
}
