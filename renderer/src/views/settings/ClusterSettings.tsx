// Settings > Cluster: the Ray dashboard address the Train view submits to, and its bearer token.
// The token is write-only, like the endpoints' keys: once stored it shows as "token stored" with
// Replace and Remove, and no answer of the engine ever holds it (cluster.settings has `hasToken`).
import { useEffect, useState, type SyntheticEvent } from 'react';
import type { ClusterSettingsView } from '../../../../app/api/index.ts';
import { useApi } from '../../api/ApiContext.tsx';
import { useApiEvent } from '../../api/useApiEvent.ts';
import { describeFailure, type Failure } from './useModelEndpoints.ts';

export function ClusterSettings() {
  const api = useApi();
  const [saved, setSaved] = useState<ClusterSettingsView | null>(null);
  const [address, setAddress] = useState('');
  const [token, setToken] = useState('');
  const [replacing, setReplacing] = useState(false);
  const [failure, setFailure] = useState<Failure | null>(null);
  const [busy, setBusy] = useState(false);
  const [generation, setGeneration] = useState(0);
  useApiEvent('cluster.settingsChanged', () => {
    setGeneration((n) => n + 1);
  });

  useEffect(() => {
    let live = true;
    api.call('cluster.settings', {}).then(
      (view) => {
        if (!live) return;
        setSaved(view);
        setAddress(view.address ?? '');
      },
      (error: unknown) => {
        if (live) setFailure(describeFailure(error));
      },
    );
    return () => {
      live = false;
    };
  }, [api, generation]);

  const save = (request: { token?: string; forgetToken?: boolean }) => {
    setBusy(true);
    setFailure(null);
    const trimmed = address.trim();
    api.call('cluster.saveSettings', { address: trimmed === '' ? null : trimmed, ...request }).then(
      (view) => {
        setBusy(false);
        setSaved(view);
        setToken('');
        setReplacing(false);
      },
      (error: unknown) => {
        setBusy(false);
        setFailure(describeFailure(error));
      },
    );
  };
  const submit = (event: SyntheticEvent) => {
    event.preventDefault();
    save(token.trim() === '' ? {} : { token: token.trim() });
  };
  const entering = saved === null || !saved.hasToken || replacing;

  return (
    <section className="settings-section" aria-labelledby="cluster-title">
      <h2 id="cluster-title" className="settings-subheading">
        Ray cluster
      </h2>
      <p className="settings-muted">
        Where the Train view submits exported jobs (Ray Jobs REST API on the dashboard port). The
        token is sent as a bearer token, encrypted in the workspace folder and never shown again;
        <code>rlm-studio cluster</code> uses both when no flag or RAY_ADDRESS / RAY_JOB_TOKEN is
        given.
      </p>
      <form className="endpoint-form" onSubmit={submit} data-testid="cluster-settings">
        <div className="settings-field">
          <label htmlFor="cluster-address">Dashboard address</label>
          <input
            id="cluster-address"
            data-testid="cluster-address"
            value={address}
            // Until the saved address arrives, so typing is not overwritten by it.
            disabled={saved === null}
            placeholder="http://head-node:8265"
            spellCheck={false}
            onChange={(event) => {
              setAddress(event.target.value);
            }}
          />
        </div>
        <div className="settings-field">
          <label htmlFor="cluster-token">Token</label>
          <div className="settings-row">
            {entering ? (
              <input
                id="cluster-token"
                type="password"
                data-testid="cluster-token"
                value={token}
                disabled={saved === null}
                autoComplete="new-password"
                spellCheck={false}
                placeholder={saved?.hasToken ? 'the new token' : 'only if the cluster asks for one'}
                onChange={(event) => {
                  setToken(event.target.value);
                }}
              />
            ) : (
              <>
                <span className="settings-badge key" data-testid="cluster-token-stored">
                  token stored
                </span>
                <button
                  type="button"
                  className="button"
                  onClick={() => {
                    setReplacing(true);
                  }}
                >
                  Replace
                </button>
                <button
                  type="button"
                  className="button"
                  data-testid="cluster-token-remove"
                  disabled={busy}
                  onClick={() => {
                    save({ forgetToken: true });
                  }}
                >
                  Remove
                </button>
              </>
            )}
          </div>
        </div>
        <div className="endpoint-form-actions">
          <button
            type="submit"
            className="button primary"
            disabled={busy || saved === null}
            data-testid="cluster-save"
          >
            Save
          </button>
          {saved && (
            <span className="settings-muted" data-testid="cluster-saved">
              {saved.address === null ? 'no cluster set' : `submits to ${saved.address}`}
            </span>
          )}
        </div>
        {failure && (
          <p className="settings-failure" role="alert" data-testid="cluster-settings-failure">
            {failure.name}: {failure.message}
          </p>
        )}
      </form>
    </section>
  );
}
