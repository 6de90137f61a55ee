// The add/edit endpoint form as plain data: what each kind is called and where it listens, how a
// kind change prefills the base URL, and the save request the form's state becomes. The key is
// write-only: the form holds a key only while the user types one, and never gets one back.
import {
  EndpointDraft,
  defaultEndpointBaseUrls,
  keyRequiredKinds,
  modelEndpointKindIds,
  type CommandRequest,
  type ModelEndpointKindId,
  type ModelEndpointView,
} from '../../../../app/api/index.ts';

export const endpointKindLabels: Readonly<Record<ModelEndpointKindId, string>> = {
  openai: 'OpenAI',
  'openai-compatible': 'OpenAI-compatible',
  vllm: 'vLLM',
  sglang: 'SGLang',
  ollama: 'Ollama',
  lmstudio: 'LM Studio',
  anthropic: 'Anthropic',
};

/** Select order: the hosted APIs (those that need a key), then the other servers. */
export const endpointKindOrder: readonly ModelEndpointKindId[] = [
  ...keyRequiredKinds,
  ...modelEndpointKindIds.filter((kind) => !keyRequiredKinds.includes(kind)),
];

/**
 * The key field: `keep` shows "stored" (a key is in the vault and is left alone), `enter` is the
 * password field (a new key, or none), `forget` drops the stored key on save.
 */
export type KeyField = { mode: 'keep' } | { mode: 'enter'; value: string } | { mode: 'forget' };

export interface EndpointFormState {
  /** Absent while adding. */
  id: string | undefined;
  name: string;
  kind: ModelEndpointKindId;
  baseUrl: string;
  model: string;
  /** Whether the endpoint being edited has a key in the vault. */
  hasStoredKey: boolean;
  key: KeyField;
}

export type EndpointField = 'name' | 'kind' | 'baseUrl' | 'model';
export type FieldProblems = Partial<Record<EndpointField, string>>;

export function newEndpointForm(
  kind: ModelEndpointKindId = 'openai-compatible',
): EndpointFormState {
  return {
    id: undefined,
    name: '',
    kind,
    baseUrl: defaultEndpointBaseUrls[kind],
    model: '',
    hasStoredKey: false,
    key: { mode: 'enter', value: '' },
  };
}

export function editEndpointForm(endpoint: ModelEndpointView): EndpointFormState {
  return {
    id: endpoint.id,
    name: endpoint.name,
    kind: endpoint.kind,
    baseUrl: endpoint.baseUrl,
    model: endpoint.model,
    hasStoredKey: endpoint.hasKey,
    key: endpoint.hasKey ? { mode: 'keep' } : { mode: 'enter', value: '' },
  };
}

/** A new kind brings its default base URL, unless the user typed one of their own. */
export function changeKind(form: EndpointFormState, kind: ModelEndpointKindId): EndpointFormState {
  const untouched =
    form.baseUrl.trim() === '' || form.baseUrl === defaultEndpointBaseUrls[form.kind];
  return { ...form, kind, baseUrl: untouched ? defaultEndpointBaseUrls[kind] : form.baseUrl };
}

export function keyRequired(kind: ModelEndpointKindId): boolean {
  return keyRequiredKinds.includes(kind);
}

/** Problems the engine would refuse, found before asking it (same schema). */
export function formProblems(form: EndpointFormState): FieldProblems {
  const parsed = EndpointDraft.safeParse(draftOf(form));
  if (parsed.success) return {};
  const problems: FieldProblems = {};
  for (const issue of parsed.error.issues) {
    const field = issue.path[0];
    if (isEndpointField(field)) problems[field] ??= issue.message;
  }
  return problems;
}

export function saveRequest(form: EndpointFormState): CommandRequest<'models.saveEndpoint'> {
  const endpoint = draftOf(form);
  switch (form.key.mode) {
    case 'keep':
      return { endpoint };
    case 'forget':
      return { endpoint, forgetKey: true };
    case 'enter': {
      const apiKey = form.key.value.trim();
      return apiKey === '' ? { endpoint } : { endpoint, apiKey };
    }
  }
}

/** The endpoint a local Ollama model becomes with one click. */
export function ollamaEndpoint(model: string, baseUrl: string): EndpointDraft {
  return { name: `Ollama ${model}`, kind: 'ollama', baseUrl, model };
}

function draftOf(form: EndpointFormState): EndpointDraft {
  return {
    ...(form.id === undefined ? {} : { id: form.id }),
    name: form.name.trim(),
    kind: form.kind,
    baseUrl: form.baseUrl.trim(),
    model: form.model.trim(),
  };
}

function isEndpointField(value: unknown): value is EndpointField {
  return value === 'name' || value === 'kind' || value === 'baseUrl' || value === 'model';
}
