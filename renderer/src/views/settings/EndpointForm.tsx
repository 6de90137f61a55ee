// Adds or edits one endpoint. The API key is a write-only password field: an endpoint that has one
// shows "stored" with Replace and Remove, and the field is emptied as soon as the engine has the key.
import { useState, type ReactNode, type SubmitEvent } from 'react';
import { defaultEndpointBaseUrls, type ModelEndpointKindId } from '../../../../app/api/index.ts';
import { useApi } from '../../api/ApiContext.tsx';
import {
  changeKind,
  endpointKindLabels,
  endpointKindOrder,
  formProblems,
  keyRequired,
  saveRequest,
  type EndpointField,
  type EndpointFormState,
  type FieldProblems,
} from './endpoint-form.ts';
import { describeFailure, type Failure } from './useModelEndpoints.ts';

export interface EndpointFormProps {
  form: EndpointFormState;
  onChange: (form: EndpointFormState) => void;
  onSaved: () => void;
  onCancel: () => void;
}

// Problems are shown after a save is tried, and each clears as its field is edited.
function useEndpointSave({ form, onChange, onSaved }: Omit<EndpointFormProps, 'onCancel'>) {
  const api = useApi();
  const [shown, setShown] = useState<FieldProblems>({});
  const [saving, setSaving] = useState(false);
  const [failure, setFailure] = useState<Failure | null>(null);

  const set = (field: Exclude<EndpointField, 'kind'>, value: string) => {
    onChange({ ...form, [field]: value });
    if (shown[field] !== undefined) setShown({ ...shown, [field]: undefined });
  };

  const submit = async (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    const problems = formProblems(form);
    setShown(problems);
    if (Object.keys(problems).length > 0) return;
    setSaving(true);
    setFailure(null);
    try {
      await api.call('models.saveEndpoint', saveRequest(form));
      onSaved();
    } catch (error) {
      setFailure(describeFailure(error));
    } finally {
      setSaving(false);
    }
  };
  return { shown, saving, failure, set, submit };
}

export function EndpointForm({ form, onChange, onSaved, onCancel }: EndpointFormProps) {
  const { shown, saving, failure, set, submit } = useEndpointSave({ form, onChange, onSaved });
  const adding = form.id === undefined;
  return (
    <form
      className="endpoint-form"
      data-testid="endpoint-form"
      aria-labelledby="endpoint-form-title"
      noValidate
      onSubmit={(event) => void submit(event)}
    >
      <h2 id="endpoint-form-title" className="endpoint-form-title">
        {adding ? 'Add an endpoint' : `Edit ${form.name || 'endpoint'}`}
      </h2>
      <div className="endpoint-form-grid">
        <EndpointFields form={form} shown={shown} onChange={onChange} set={set} />
      </div>
      {failure && (
        <p className="settings-failure" role="alert" data-testid="endpoint-form-failure">
          {failure.name}: {failure.message}
        </p>
      )}
      <div className="endpoint-form-actions">
        <button
          type="submit"
          className="button primary"
          data-testid="endpoint-save"
          disabled={saving}
        >
          {saving ? 'Saving…' : adding ? 'Add endpoint' : 'Save changes'}
        </button>
        <button type="button" className="button" onClick={onCancel}>
          {adding ? 'Clear' : 'Cancel'}
        </button>
      </div>
    </form>
  );
}

// The form's four fields in order, each a labelled control: long only because it is flat markup.
function EndpointFields({
  form,
  shown,
  onChange,
  set,
}: {
  form: EndpointFormState;
  shown: FieldProblems;
  onChange: (form: EndpointFormState) => void;
  set: (field: Exclude<EndpointField, 'kind'>, value: string) => void;
}) {
  return (
    <>
      <Field label="Kind" htmlFor="endpoint-kind">
        <select
          id="endpoint-kind"
          data-testid="endpoint-kind"
          value={form.kind}
          onChange={(event) => {
            onChange(changeKind(form, event.target.value as ModelEndpointKindId));
          }}
        >
          {endpointKindOrder.map((kind) => (
            <option key={kind} value={kind}>
              {endpointKindLabels[kind]}
            </option>
          ))}
        </select>
      </Field>
      <Field label="Name" htmlFor="endpoint-name" problem={shown.name}>
        <input
          id="endpoint-name"
          type="text"
          data-testid="endpoint-name"
          value={form.name}
          placeholder="e.g. Lab vLLM"
          maxLength={100}
          aria-invalid={shown.name ? true : undefined}
          onChange={(event) => {
            set('name', event.target.value);
          }}
        />
      </Field>
      <Field label="Base URL" htmlFor="endpoint-base-url" problem={shown.baseUrl}>
        <input
          id="endpoint-base-url"
          type="url"
          data-testid="endpoint-base-url"
          value={form.baseUrl}
          placeholder={defaultEndpointBaseUrls.vllm}
          spellCheck={false}
          aria-invalid={shown.baseUrl ? true : undefined}
          onChange={(event) => {
            set('baseUrl', event.target.value);
          }}
        />
      </Field>
      <Field label="Model" htmlFor="endpoint-model" problem={shown.model}>
        <input
          id="endpoint-model"
          type="text"
          data-testid="endpoint-model"
          value={form.model}
          placeholder={form.kind === 'anthropic' ? 'claude-sonnet-4-5' : 'e.g. Qwen/Qwen3-8B'}
          spellCheck={false}
          aria-invalid={shown.model ? true : undefined}
          onChange={(event) => {
            set('model', event.target.value);
          }}
        />
      </Field>
      <KeyField form={form} onChange={onChange} />
    </>
  );
}

function Field({
  label,
  htmlFor,
  problem,
  children,
}: {
  label: string;
  htmlFor: string;
  problem?: string | undefined;
  children: ReactNode;
}) {
  return (
    <div className="settings-field">
      <label htmlFor={htmlFor}>{label}</label>
      {children}
      {problem !== undefined && (
        <span className="settings-bad" role="alert">
          {problem}
        </span>
      )}
    </div>
  );
}

/** The password field for a new key (with a way back to the stored one, if there is one). */
function KeyInput({
  form,
  value,
  hint,
  onChange,
}: {
  form: EndpointFormState;
  value: string;
  hint: string;
  onChange: (form: EndpointFormState) => void;
}) {
  return (
    <div className="settings-field">
      <label htmlFor="endpoint-api-key">API key</label>
      <div className="settings-row">
        <input
          id="endpoint-api-key"
          type="password"
          data-testid="endpoint-api-key"
          value={value}
          autoComplete="new-password"
          spellCheck={false}
          placeholder={form.hasStoredKey ? 'the new key' : 'sk-…'}
          onChange={(event) => {
            onChange({ ...form, key: { mode: 'enter', value: event.target.value } });
          }}
        />
        {form.hasStoredKey && (
          <button
            type="button"
            className="button"
            onClick={() => {
              onChange({ ...form, key: { mode: 'keep' } });
            }}
          >
            Keep stored key
          </button>
        )}
      </div>
      <span className="settings-muted">{hint}</span>
    </div>
  );
}

/** The write-only key: a password field, or "stored" with Replace / Remove. */
function KeyField({
  form,
  onChange,
}: {
  form: EndpointFormState;
  onChange: (form: EndpointFormState) => void;
}) {
  const hint = keyRequired(form.kind)
    ? 'Required by this service. Encrypted in the workspace folder; never shown again.'
    : 'Only if the server asks for one. Encrypted in the workspace folder; never shown again.';
  if (form.key.mode === 'enter')
    return <KeyInput form={form} value={form.key.value} hint={hint} onChange={onChange} />;
  return (
    <div className="settings-field">
      <span className="settings-label">API key</span>
      <div className="settings-row">
        {form.key.mode === 'keep' ? (
          <span className="settings-badge key" data-testid="endpoint-key-stored">
            stored
          </span>
        ) : (
          <span className="settings-badge warn" data-testid="endpoint-key-forget">
            removed on save
          </span>
        )}
        <button
          type="button"
          className="button"
          data-testid="endpoint-key-replace"
          onClick={() => {
            onChange({ ...form, key: { mode: 'enter', value: '' } });
          }}
        >
          Replace
        </button>
        {form.key.mode === 'keep' ? (
          <button
            type="button"
            className="button"
            data-testid="endpoint-key-remove"
            onClick={() => {
              onChange({ ...form, key: { mode: 'forget' } });
            }}
          >
            Remove
          </button>
        ) : (
          <button
            type="button"
            className="button"
            onClick={() => {
              onChange({ ...form, key: { mode: 'keep' } });
            }}
          >
            Undo
          </button>
        )}
      </div>
      <span className="settings-muted">{hint}</span>
    </div>
  );
}
