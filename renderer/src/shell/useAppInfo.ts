// Asks the engine once what it is ('app.info'): version, shell and workspace, for the status bar.
import { useEffect, useState } from 'react';
import type { AppInfo } from '../../../app/api/index.ts';
import { useApi } from '../api/ApiContext.tsx';

export type AppInfoState =
  | { status: 'loading' }
  | { status: 'ready'; info: AppInfo }
  | { status: 'failed'; message: string };

export function useAppInfo(): AppInfoState {
  const api = useApi();
  const [state, setState] = useState<AppInfoState>({ status: 'loading' });
  useEffect(() => {
    let live = true;
    api.call('app.info', {}).then(
      (info) => {
        if (live) setState({ status: 'ready', info });
      },
      (error: unknown) => {
        if (live) {
          setState({
            status: 'failed',
            message: error instanceof Error ? error.message : String(error),
          });
        }
      },
    );
    return () => {
      live = false;
    };
  }, [api]);
  return state;
}
