// Settings > Cluster: the Ray dashboard address the Train view submits to, and its bearer token.
// The token is write-only, like the endpoints' keys: once stored it shows as "token stored" with
// Replace and Remove, and no answer of the engine ever holds it (cluster.settings has `hasToken`).
import { useState, type SyntheticEvent } from 'react';
import type { ClusterSettingsView } from '../../../../app/api/index.ts';
import { useSavedSetting } from './useSavedSetting.ts';

function useClusterSettingsForm() {
  const [address, setAddress] = useState('');
  const [token, setToken] = useState('');
  const [replacing, setReplacing] = useState(false);
  const { saved, failure, busy, save } = useSavedSetting<ClusterSettingsView>(
    'cluster.settingsChanged',
    (api) => api.call('cluster.settings', {}),
    (view) => {
      setAddress(view.address ?? '');
    },
  );

  const write = (request: { token?: string; forgetToken?: boolean }) => {
    const trimmed = address.trim();
    save(
      (api) =>
        api.call('cluster.saveSettings', {
          address: trimmed === '' ? null : trimmed,
          ...request,
        }),
      () => {
        setToken('');
        setReplacing(false);
      },
    );
  };
  const submit = (event: SyntheticEvent) => {
    event.preventDefault();
    write(token.trim() === '' ? {} : { token: token.trim() });
  };
  const entering = saved === undefined || !saved.hasToken || replacing;
  const fields = { address, setAddress, token, setToken, setReplacing };
  return { ...fields, saved, failure, busy, write, submit, entering };
}

export function ClusterSettings() {
  const form = useClusterSettingsForm();
  const { saved, busy, failure } = form;
  return (
    <section className="settings-section" aria-labelledby="cluster-title">
      <h2 id="cluster-title" className="settings-subheading">
        Ray cluster
      </h2>
      <p className="settings-muted">
        Where the Train view submits exported jobs (Ray Jobs REST API on the dashboard port). The
        token is sent as a bearer token, encrypted in the workspace folder and never shown again;{' '}
        <code>rlm-studio cluster</code> uses both when no flag or RAY_ADDRESS / RAY_JOB_TOKEN is
        given.
      </p>
      <form className="endpoint-form" onSubmit={form.submit} data-testid="cluster-settings">
        <div className="settings-field">
          <label htmlFor="cluster-address">Dashboard address</label>
          <input
            id="cluster-address"
            data-testid="cluster-address"
            value={form.address}
            // Until the saved address arrives, so typing is not overwritten by it.
            disabled={saved === undefined}
            placeholder="http://head-node:8265"
            spellCheck={false}
            onChange={(event) => {
              form.setAddress(event.target.value);
            }}
          />
        </div>
        <TokenField form={form} />
        <div className="endpoint-form-actions">
          <button
            type="submit"
            className="button primary"
            disabled={busy || saved === undefined}
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

/** A new token while none is stored (or Replace was chosen); else "token stored". */
function TokenField({ form }: { form: ReturnType<typeof useClusterSettingsForm> }) {
  const { saved, busy } = form;
  return (
    <div className="settings-field">
      <label htmlFor="cluster-token">Token</label>
      <div className="settings-row">
        {form.entering ? (
          <input
            id="cluster-token"
            type="password"
            data-testid="cluster-token"
            value={form.token}
            disabled={saved === undefined}
            autoComplete="new-password"
            spellCheck={false}
            placeholder={saved?.hasToken ? 'the new token' : 'only if the cluster asks for one'}
            onChange={(event) => {
              form.setToken(event.target.value);
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
                form.setReplacing(true);
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
                form.write({ forgetToken: true });
              }}
            >
              Remove
            </button>
          </>
        )}
      </div>
    </div>
  );
}
