// Local Ollama: the models of the server on its default port, each one click from being an
// endpoint. No server answering is the ordinary case, said plainly with a way to look again.
import { useEffect, useState } from 'react';
import type { CommandResponse, ModelEndpointView } from '../../../../app/api/index.ts';
import { useApi } from '../../api/ApiContext.tsx';
import { ollamaEndpoint } from './endpoint-form.ts';
import { describeFailure, type Failure } from './useModelEndpoints.ts';

type Discovery =
  | { status: 'looking' }
  | { status: 'done'; found: CommandResponse<'models.discoverOllama'> }
  | { status: 'failed'; failure: Failure };

/** Asks the engine for the local server's models; `lookAgain` asks once more. */
function useOllamaDiscovery(): { discovery: Discovery; lookAgain: () => void } {
  const api = useApi();
  const [discovery, setDiscovery] = useState<Discovery>({ status: 'looking' });
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    let live = true;
    api.call('models.discoverOllama', {}).then(
      (found) => {
        if (live) setDiscovery({ status: 'done', found });
      },
      (error: unknown) => {
        if (live) setDiscovery({ status: 'failed', failure: describeFailure(error) });
      },
    );
    return () => {
      live = false;
    };
  }, [api, attempt]);

  const lookAgain = () => {
    setDiscovery({ status: 'looking' });
    setAttempt((n) => n + 1);
  };

  return { discovery, lookAgain };
}

export function OllamaPanel({ endpoints }: { endpoints: readonly ModelEndpointView[] }) {
  const api = useApi();
  const [addFailure, setAddFailure] = useState<Failure | null>(null);
  const { discovery, lookAgain } = useOllamaDiscovery();

  const add = async (model: string, baseUrl: string) => {
    setAddFailure(null);
    try {
      await api.call('models.saveEndpoint', { endpoint: ollamaEndpoint(model, baseUrl) });
    } catch (error) {
      setAddFailure(describeFailure(error));
    }
  };

  const added = (model: string) =>
    endpoints.some((endpoint) => endpoint.kind === 'ollama' && endpoint.model === model);

  return (
    <section className="settings-section" aria-labelledby="ollama-title" data-testid="ollama">
      <h2 id="ollama-title" className="settings-subheading">
        Local Ollama
      </h2>
      {discovery.status === 'looking' ? (
        <p className="settings-muted">Looking for Ollama on this machine…</p>
      ) : discovery.status === 'failed' ? (
        <p className="settings-failure" role="alert">
          {discovery.failure.name}: {discovery.failure.message}
        </p>
      ) : !discovery.found.available ? (
        <p className="settings-muted" data-testid="ollama-none">
          No Ollama server answered at {discovery.found.baseUrl} (or it has no models). Start it
          with <code>ollama serve</code>, pull a model, then{' '}
          <button type="button" className="settings-link-button" onClick={lookAgain}>
            look again
          </button>
          .
        </p>
      ) : (
        <ul className="ollama-models" data-testid="ollama-models">
          {discovery.found.models.map((model) => (
            <li key={model} className="ollama-model">
              <code>{model}</code>
              {added(model) ? (
                <span className="settings-badge">added</span>
              ) : (
                <button
                  type="button"
                  className="button"
                  onClick={() => void add(model, discovery.found.baseUrl)}
                >
                  Add
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      {addFailure && (
        <p className="settings-failure" role="alert">
          {addFailure.name}: {addFailure.message}
        </p>
      )}
    </section>
  );
}
