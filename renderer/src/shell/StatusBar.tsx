// The status bar along the bottom: the connection to the engine, then what 'app.info' says about it
// (version, shell, workspace). A failed 'app.info' shows its message instead of hiding it.
import type { ConnectionState } from '../api/connection.ts';
import { useConnectionState } from '../api/ApiContext.tsx';
import { useAppInfo } from './useAppInfo.ts';

function connectionText(state: ConnectionState): string {
  switch (state.status) {
    case 'connecting':
      return 'connecting';
    case 'connected':
      return 'connected';
    case 'disconnected':
      return `disconnected: ${state.reason}`;
  }
}

export function StatusBar() {
  const connection = useConnectionState();
  const appInfo = useAppInfo();
  return (
    <footer className="status-bar">
      <span
        className="status-connection"
        data-testid="connection-status"
        data-state={connection.status}
        role="status"
      >
        <span className="status-dot" aria-hidden="true" />
        {connectionText(connection)}
      </span>
      {appInfo.status === 'loading' && <span className="status-item status-muted">…</span>}
      {appInfo.status === 'failed' && (
        <span className="status-item status-error" data-testid="app-info-error">
          {appInfo.message}
        </span>
      )}
      {appInfo.status === 'ready' && (
        <>
          <span className="status-item" data-testid="app-version">
            {appInfo.info.name} {appInfo.info.version}
          </span>
          <span className="status-item" data-testid="app-shell">
            {appInfo.info.shell}
          </span>
          <span
            className="status-item status-path"
            data-testid="workspace-path"
            title={`Workspace: ${appInfo.info.workspace}`}
          >
            {appInfo.info.workspace}
          </span>
        </>
      )}
    </footer>
  );
}
