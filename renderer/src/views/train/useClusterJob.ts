// Follows one Ray job: asks the engine for its state and the tail of its logs every `pollMs` while
// it can still change, and once more when it ends. A failed poll is shown named beside the last
// state and logs seen (nothing is dropped) and the next poll, a little later each time, tries again.
import { useCallback, useEffect, useState } from 'react';
import { finishedRayJobStates, type ClusterJob } from '../../../../app/api/index.ts';
import { useApi } from '../../api/ApiContext.tsx';
import { describeFailure, type Failure } from '../papers/failure.ts';

export interface FollowedJob {
  job: ClusterJob | null;
  logs: { text: string; totalLines: number } | null;
  failure: Failure | null;
  /** Asks again now (after Stop, say). */
  refresh: () => void;
}

export const LOG_TAIL_LINES = 200;

export function useClusterJob(submissionId: string | null, pollMs = 1000): FollowedJob {
  const api = useApi();
  const [job, setJob] = useState<ClusterJob | null>(null);
  const [logs, setLogs] = useState<FollowedJob['logs']>(null);
  const [failure, setFailure] = useState<Failure | null>(null);
  const [tick, setTick] = useState(0);
  const refresh = useCallback(() => {
    setTick((n) => n + 1);
  }, []);

  useEffect(() => {
    setJob(null);
    setLogs(null);
    setFailure(null);
  }, [submissionId]);

  useEffect(() => {
    if (submissionId === null) return;
    // Cleared on unmount or a new job; an object, so the checks after each await read it afresh.
    const run = { live: true };
    const stale = () => !run.live;
    let timer: ReturnType<typeof setTimeout> | undefined;
    // A cluster that does not answer is asked less often (up to every 30 s) until it does.
    let failures = 0;
    const poll = async () => {
      let finished = false;
      try {
        const { job: seen } = await api.call('cluster.status', { submissionId });
        if (stale()) return;
        setJob(seen);
        finished = seen.state !== null && finishedRayJobStates.includes(seen.state);
        const tail = await api.call('cluster.logs', { submissionId, tailLines: LOG_TAIL_LINES });
        if (stale()) return;
        setLogs(tail);
        setFailure(null);
        failures = 0;
      } catch (error) {
        failures += 1;
        if (run.live) setFailure(describeFailure(error));
      }
      const wait = Math.min(pollMs * 2 ** failures, 30_000);
      if (run.live && !finished) timer = setTimeout(() => void poll(), wait);
    };
    void poll();
    return () => {
      run.live = false;
      clearTimeout(timer);
    };
  }, [api, submissionId, pollMs, tick]);

  return { job, logs, failure, refresh };
}
