// Opens one run for the view: its stored log, then (live mode) every new event as runs.event brings
// it; or (replay mode) a ReplayPlayer over the stored log. Both feed one RunStore, so the tree and
// the inspector never know which they show.
import { useEffect, useState } from 'react';
import type { RunEvent, RunSummaryPayload } from '../../../../app/api/index.ts';
import { useApi } from '../../api/ApiContext.tsx';
import { describeFailure, type Failure } from '../papers/failure.ts';
import { ReplayPlayer } from './replay.ts';
import { RunStore } from './run-store.ts';
import type { RunMode } from './route.ts';

export type RunSession =
  | { status: 'loading' }
  | { status: 'failed'; failure: Failure }
  | { status: 'ready'; store: RunStore; summary: RunSummaryPayload; replay: ReplayPlayer | null };

const frameScheduler = (flush: () => void) => {
  requestAnimationFrame(flush);
};
const browserTimers = {
  setTimeout: (run: () => void, ms: number) => window.setTimeout(run, ms),
  clearTimeout: (id: number) => {
    window.clearTimeout(id);
  },
};

export function useRunSession(runId: string, mode: RunMode): RunSession {
  const api = useApi();
  const [session, setSession] = useState<{ key: string; value: RunSession } | null>(null);
  const key = `${runId} ${mode}`;

  useEffect(() => {
    let live = true;
    const store = new RunStore(frameScheduler);
    // Streamed events are buffered until the stored log arrives; then only those at or past its
    // end (by `seq`, the event's index in the log) are new: none lost, none applied twice. An event
    // without seq arriving before the log is in it already (the engine flushes before answering).
    let logLength: number | null = null;
    const early: { seq: number | undefined; event: RunEvent }[] = [];
    const unsubscribe =
      mode === 'live'
        ? api.on('runs.event', (event) => {
            if (event.runId !== runId) return;
            if (logLength === null) early.push({ seq: event.seq, event: event.event });
            else if (event.seq === undefined || event.seq >= logLength) store.push(event.event);
          })
        : () => undefined;
    let replay: ReplayPlayer | null = null;
    // Marks for bench:ui's breakdown of opening a run (request, log received, folded).
    performance.mark('run-open:request');
    api.call('runs.events', { runId }).then(
      ({ run, events }: { run: RunSummaryPayload; events: RunEvent[] }) => {
        if (!live) return;
        performance.mark('run-open:log');
        logLength = events.length;
        if (mode === 'replay') {
          replay = new ReplayPlayer(events, store, browserTimers);
        } else {
          store.push(...events);
          for (const { seq, event } of early)
            if (seq !== undefined && seq >= events.length) store.push(event);
          store.flush();
        }
        performance.mark('run-open:folded');
        setSession({ key, value: { status: 'ready', store, summary: run, replay } });
      },
      (error: unknown) => {
        if (live) setSession({ key, value: { status: 'failed', failure: describeFailure(error) } });
      },
    );
    return () => {
      live = false;
      unsubscribe();
      replay?.dispose();
    };
  }, [api, runId, mode, key]);

  return session?.key === key ? session.value : { status: 'loading' };
}
