// The saved endpoints: what each is (kind, base URL, model), whether a key is stored (never the
// key), and its actions: edit, test (the named error or "ok"), delete with a confirming second click.
import { useState } from 'react';
import type { ModelEndpointView } from '../../../../app/api/index.ts';
import { useApi } from '../../api/ApiContext.tsx';
import { endpointKindLabels } from './endpoint-form.ts';
import { describeFailure, type EndpointsState, type Failure } from './useModelEndpoints.ts';

type TestState =
  | { status: 'testing' }
  | { status: 'ok'; reply: string; latencyMs: number }
  | { status: 'failed'; failure: Failure };

export interface EndpointListProps {
  state: EndpointsState;
  editingId: string | undefined;
  onEdit: (endpoint: ModelEndpointView) => void;
  onDeleted: (id: string) => void;
}

export function EndpointList({ state, editingId, onEdit, onDeleted }: EndpointListProps) {
  if (state.status === 'failed') {
    return (
      <p className="settings-failure" role="alert">
        {state.failure.name}: {state.failure.message}
      </p>
    );
  }
  if (state.status === 'loading') return <p className="settings-muted">Loading…</p>;
  if (state.endpoints.length === 0) {
    return (
      <p className="settings-muted" data-testid="no-endpoints">
        No endpoints yet. Add one below, or pick a model of your local Ollama.
      </p>
    );
  }
  return (
    <ul className="endpoint-list" data-testid="endpoint-list">
      {state.endpoints.map((endpoint) => (
        <EndpointRow
          key={endpoint.id}
          endpoint={endpoint}
          editing={endpoint.id === editingId}
          onEdit={onEdit}
          onDeleted={onDeleted}
        />
      ))}
    </ul>
  );
}

interface EndpointRowProps {
  endpoint: ModelEndpointView;
  editing: boolean;
  onEdit: (endpoint: ModelEndpointView) => void;
  onDeleted: (id: string) => void;
}

function useEndpointTest(id: string) {
  const api = useApi();
  const [test, setTest] = useState<TestState | null>(null);
  const runTest = async () => {
    setTest({ status: 'testing' });
    try {
      const result = await api.call('models.testEndpoint', { id });
      setTest(
        result.ok
          ? { status: 'ok', reply: result.reply, latencyMs: result.latencyMs }
          : { status: 'failed', failure: result.error },
      );
    } catch (error) {
      setTest({ status: 'failed', failure: describeFailure(error) });
    }
  };
  return { test, runTest };
}

function useEndpointDelete(id: string, onDeleted: (id: string) => void) {
  const api = useApi();
  const [confirming, setConfirming] = useState(false);
  const [deleteFailure, setDeleteFailure] = useState<Failure | null>(null);
  const remove = async () => {
    try {
      await api.call('models.deleteEndpoint', { id });
      onDeleted(id);
    } catch (error) {
      setDeleteFailure(describeFailure(error));
      setConfirming(false);
    }
  };
  return { confirming, setConfirming, deleteFailure, remove };
}

function EndpointRow({ endpoint, editing, onEdit, onDeleted }: EndpointRowProps) {
  const { test, runTest } = useEndpointTest(endpoint.id);
  const { confirming, setConfirming, deleteFailure, remove } = useEndpointDelete(
    endpoint.id,
    onDeleted,
  );
  return (
    <li
      className={`endpoint${editing ? ' editing' : ''}`}
      data-testid="endpoint"
      data-endpoint={endpoint.name}
    >
      <EndpointFacts endpoint={endpoint} />
      <div className="endpoint-actions">
        <button
          type="button"
          className="button"
          data-testid="endpoint-edit"
          onClick={() => {
            onEdit(endpoint);
          }}
        >
          Edit
        </button>
        <button
          type="button"
          className="button"
          data-testid="endpoint-test"
          disabled={test?.status === 'testing'}
          onClick={() => void runTest()}
        >
          {test?.status === 'testing' ? 'Testing…' : 'Test'}
        </button>
        <DeleteButtons
          name={endpoint.name}
          confirming={confirming}
          onConfirming={setConfirming}
          onRemove={() => void remove()}
        />
      </div>
      {test && test.status !== 'testing' && (
        <p
          className={test.status === 'ok' ? 'endpoint-test ok' : 'endpoint-test failed'}
          data-testid="endpoint-test-result"
          role="status"
        >
          {test.status === 'ok'
            ? `ok · replied “${test.reply.trim().slice(0, 80)}” in ${test.latencyMs.toLocaleString()} ms`
            : `${test.failure.name}: ${test.failure.message}`}
        </p>
      )}
      {deleteFailure && (
        <p className="settings-failure" role="alert">
          {deleteFailure.name}: {deleteFailure.message}
        </p>
      )}
    </li>
  );
}

function EndpointFacts({ endpoint }: { endpoint: ModelEndpointView }) {
  return (
    <>
      <div className="endpoint-head">
        <span className="endpoint-name">{endpoint.name}</span>
        <span className="settings-badge">{endpointKindLabels[endpoint.kind]}</span>
        {endpoint.hasKey && (
          <span className="settings-badge key" data-testid="key-stored">
            key stored
          </span>
        )}
      </div>
      <dl className="endpoint-facts">
        <dt>Model</dt>
        <dd>{endpoint.model}</dd>
        <dt>Base URL</dt>
        <dd>{endpoint.baseUrl}</dd>
        <dt>Spec</dt>
        <dd>
          <code>{endpoint.spec}</code>
        </dd>
      </dl>
    </>
  );
}

/** Delete, then a second click to confirm (or Keep). */
function DeleteButtons(props: {
  name: string;
  confirming: boolean;
  onConfirming: (confirming: boolean) => void;
  onRemove: () => void;
}) {
  if (!props.confirming) {
    return (
      <button
        type="button"
        className="button"
        data-testid="endpoint-delete"
        onClick={() => {
          props.onConfirming(true);
        }}
      >
        Delete
      </button>
    );
  }
  return (
    <>
      <button
        type="button"
        className="button danger"
        data-testid="endpoint-delete-confirm"
        onClick={props.onRemove}
      >
        Delete {props.name} and its key
      </button>
      <button
        type="button"
        className="button"
        onClick={() => {
          props.onConfirming(false);
        }}
      >
        Keep
      </button>
    </>
  );
}
