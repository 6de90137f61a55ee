// The logs the engine follows (runs.follows, then each runs.followChanged), and the actions on a
// path: follow it, import it whole, stop a follow. Failures are kept to show by name.
import { useEffect, useState } from 'react';
import type { CommandResponse } from '../../../../app/api/index.ts';
import { useApi } from '../../api/ApiContext.tsx';
import { useApiEvent } from '../../api/useApiEvent.ts';
import { describeFailure, type Failure } from '../papers/failure.ts';

export type Follow = CommandResponse<'runs.follow'>;
export type PathReport = CommandResponse<'runs.importPath'>;

export function useLogFollows() {
  const api = useApi();
  const [follows, setFollows] = useState<Follow[]>([]);
  const [failure, setFailure] = useState<Failure | null>(null);
  const [report, setReport] = useState<PathReport | null>(null);
  const [busy, setBusy] = useState(false);
  /** A follow's newer state; `added` (runs.follow's answer) never replaces a change seen first. */
  const put = (follow: Follow, added = false) => {
    setFollows((list) => {
      if (!list.some((f) => f.followId === follow.followId)) return [...list, follow];
      return added ? list : list.map((f) => (f.followId === follow.followId ? follow : f));
    });
  };
  useApiEvent('runs.followChanged', (event) => {
    put(event.follow);
  });
  useEffect(() => {
    let live = true;
    api.call('runs.follows', {}).then(
      ({ follows: list }) => {
        if (live) setFollows((now) => (now.length === 0 ? list : now));
      },
      (error: unknown) => {
        if (live) setFailure(describeFailure(error));
      },
    );
    return () => {
      live = false;
    };
  }, [api]);

  const act = <T>(work: () => Promise<T>, done: (result: T) => void) => {
    setBusy(true);
    setFailure(null);
    setReport(null);
    work().then(
      (result) => {
        setBusy(false);
        done(result);
      },
      (error: unknown) => {
        setBusy(false);
        setFailure(describeFailure(error));
      },
    );
  };
  return {
    follows,
    failure,
    fail: (error: unknown) => {
      setFailure(describeFailure(error));
    },
    report,
    busy,
    follow: (path: string, idleSeconds: number) => {
      act(
        () => api.call('runs.follow', { path, idleSeconds }),
        (follow) => {
          put(follow, true);
        },
      );
    },
    importPath: (path: string) => {
      act(() => api.call('runs.importPath', { path }), setReport);
    },
    stop: (followId: string) => {
      act(
        () => api.call('runs.unfollow', { followId }),
        (follow) => {
          put(follow);
        },
      );
    },
  };
}
