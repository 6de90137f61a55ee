import { describe, expect, it } from 'vitest';
import { modelEndpointKindIds, type ModelEndpointView } from '../../../../app/api/index.ts';
import {
  changeKind,
  editEndpointForm,
  endpointKindLabels,
  endpointKindOrder,
  formProblems,
  newEndpointForm,
  ollamaEndpoint,
  saveRequest,
} from './endpoint-form.ts';

const stored: ModelEndpointView = {
  id: 'e1',
  name: 'Lab',
  kind: 'vllm',
  baseUrl: 'http://gpu:8000/v1',
  model: 'Qwen/Qwen3-8B',
  spec: 'vllm:Qwen/Qwen3-8B@http://gpu:8000/v1',
  hasKey: true,
};

describe('endpoint form', () => {
  it('offers every kind the engine knows, once', () => {
    expect([...endpointKindOrder].sort()).toEqual([...modelEndpointKindIds].sort());
    expect(Object.keys(endpointKindLabels).sort()).toEqual([...modelEndpointKindIds].sort());
  });

  it("prefills the kind's base URL, but keeps one the user typed", () => {
    const fresh = newEndpointForm('vllm');
    expect(fresh.baseUrl).toBe('http://127.0.0.1:8000/v1');
    expect(changeKind(fresh, 'ollama').baseUrl).toBe('http://127.0.0.1:11434/v1');
    expect(changeKind(fresh, 'openai-compatible').baseUrl).toBe('');
    const typed = { ...fresh, baseUrl: 'http://gpu:9000/v1' };
    expect(changeKind(typed, 'sglang').baseUrl).toBe('http://gpu:9000/v1');
  });

  it('sends a typed key, keeps a stored one untouched, and forgets one on request', () => {
    const adding = { ...newEndpointForm('vllm'), name: 'x', model: 'm' };
    expect(saveRequest({ ...adding, key: { mode: 'enter', value: '  sk-1  ' } })).toMatchObject({
      apiKey: 'sk-1',
    });
    expect(saveRequest(adding)).not.toHaveProperty('apiKey');

    const editing = editEndpointForm(stored);
    expect(editing.key).toEqual({ mode: 'keep' });
    expect(saveRequest(editing)).toEqual({
      endpoint: {
        id: 'e1',
        name: 'Lab',
        kind: 'vllm',
        baseUrl: 'http://gpu:8000/v1',
        model: 'Qwen/Qwen3-8B',
      },
    });
    expect(saveRequest({ ...editing, key: { mode: 'forget' } })).toMatchObject({
      forgetKey: true,
    });
  });

  it('names the fields the engine would refuse', () => {
    const form = { ...newEndpointForm('openai-compatible'), name: ' ', model: 'm' };
    expect(formProblems(form)).toEqual({
      name: expect.any(String) as unknown,
      baseUrl: expect.any(String) as unknown,
    });
    expect(formProblems({ ...form, name: 'ok', baseUrl: 'http://h:1/v1' })).toEqual({});
  });

  it('turns a local Ollama model into an endpoint', () => {
    expect(ollamaEndpoint('llama3.2', 'http://127.0.0.1:11434/v1')).toEqual({
      name: 'Ollama llama3.2',
      kind: 'ollama',
      baseUrl: 'http://127.0.0.1:11434/v1',
      model: 'llama3.2',
    });
  });
});
