// Settings > Models: the endpoints runs can use (a list, a form to add or edit one, a test of
// each) and the models of a local Ollama; below them the papers map's embedding model and the Ray
// cluster the Train view submits to.
// Keys and the cluster token go in through the forms and never come back out.
import { useState } from 'react';
import type { ModelEndpointView } from '../../../../app/api/index.ts';
import { ClusterSettings } from './ClusterSettings.tsx';
import { EmbeddingModelSettings } from './EmbeddingModelSettings.tsx';
import { EndpointForm } from './EndpointForm.tsx';
import { EndpointList } from './EndpointList.tsx';
import { editEndpointForm, newEndpointForm, type EndpointFormState } from './endpoint-form.ts';
import { OllamaPanel } from './OllamaPanel.tsx';
import { useModelEndpoints } from './useModelEndpoints.ts';
import './settings.css';

export function SettingsView() {
  const endpoints = useModelEndpoints();
  const [form, setForm] = useState<EndpointFormState>(() => newEndpointForm());
  // A new generation remounts the form, dropping its shown problems and failures with the old state.
  const [formGeneration, setFormGeneration] = useState(0);
  const resetForm = () => {
    setForm(newEndpointForm(form.kind));
    setFormGeneration((n) => n + 1);
  };
  const edit = (endpoint: ModelEndpointView) => {
    setForm(editEndpointForm(endpoint));
    setFormGeneration((n) => n + 1);
  };

  return (
    <section
      className="view settings-view"
      data-testid="view-settings"
      aria-labelledby="view-settings-title"
    >
      <h1 id="view-settings-title">Settings</h1>
      <p className="view-purpose settings-muted">
        Model endpoints that runs can use. API keys are encrypted in the workspace folder and never
        shown again; runs name an endpoint by its spec.
      </p>
      <section className="settings-section" aria-labelledby="endpoints-title">
        <h2 id="endpoints-title" className="settings-subheading">
          Model endpoints
        </h2>
        <EndpointList
          state={endpoints}
          editingId={form.id}
          onEdit={edit}
          onDeleted={(id) => {
            if (form.id === id) resetForm();
          }}
        />
      </section>
      <section className="settings-section">
        <EndpointForm
          key={formGeneration}
          form={form}
          onChange={setForm}
          onSaved={resetForm}
          onCancel={resetForm}
        />
      </section>
      <OllamaPanel endpoints={endpoints.status === 'ready' ? endpoints.endpoints : []} />
      <EmbeddingModelSettings />
      <ClusterSettings />
    </section>
  );
}
