// parseModelSpec as a table, and createProvider: keys, injected replay lookup and factories.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MemoryApiKeyVault } from './api-key-vault.ts';
import { createProvider } from './create-provider.ts';
import { createEndpointProvider, endpointSpec, modelEndpointSchema } from './endpoint.ts';
import {
  InvalidModelSpecError,
  MissingApiKeyError,
  ModelError,
  ReplayUnavailableError,
  UnknownModelSpecError,
} from './errors.ts';
import { parseModelSpec } from './model-spec.ts';
import { AnthropicProvider } from './anthropic-provider.ts';
import { OpenAICompatibleProvider } from './openai-provider.ts';
import type { Provider } from './provider.ts';
import { ScriptedProvider } from './scripted-provider.ts';

const env = {
  OPENAI_API_KEY: 'sk-env-openai-0123456789abcdef',
  ANTHROPIC_API_KEY: 'sk-ant-env-0123456789abcd',
};

describe('parseModelSpec', () => {
  it.each([
    [
      'openai:gpt-4o-mini',
      {
        kind: 'openai-compatible',
        scheme: 'openai',
        model: 'gpt-4o-mini',
        baseUrl: 'https://api.openai.com/v1',
        apiKeyEnv: 'OPENAI_API_KEY',
        keyRequired: true,
      },
    ],
    [
      'openai:gpt-4o@http://127.0.0.1:9000/v1/',
      {
        scheme: 'openai',
        model: 'gpt-4o',
        baseUrl: 'http://127.0.0.1:9000/v1',
        keyRequired: false,
      },
    ],
    [
      'openai-compatible:my-model@http://10.0.0.2:8080/v1',
      {
        scheme: 'openai-compatible',
        model: 'my-model',
        baseUrl: 'http://10.0.0.2:8080/v1',
        apiKeyEnv: undefined,
        keyRequired: false,
      },
    ],
    [
      'vllm:Qwen/Qwen3-8B@http://gpu:8000/v1',
      { scheme: 'vllm', model: 'Qwen/Qwen3-8B', baseUrl: 'http://gpu:8000/v1' },
    ],
    ['vllm:Qwen/Qwen3-8B', { scheme: 'vllm', baseUrl: 'http://127.0.0.1:8000/v1' }],
    [
      'sglang:meta-llama/Llama-3.1-8B-Instruct@https://sg.example/v1',
      { scheme: 'sglang', baseUrl: 'https://sg.example/v1' },
    ],
    [
      'ollama:llama3.2:3b',
      { scheme: 'ollama', model: 'llama3.2:3b', baseUrl: 'http://127.0.0.1:11434/v1' },
    ],
    ['lmstudio:qwen2.5-7b-instruct', { scheme: 'lmstudio', baseUrl: 'http://127.0.0.1:1234/v1' }],
    [
      'openai-compatible:@cf/meta/llama@http://h:1/v1',
      { model: '@cf/meta/llama', baseUrl: 'http://h:1/v1' },
    ],
    [
      'anthropic:claude-sonnet-4-5',
      {
        kind: 'anthropic',
        model: 'claude-sonnet-4-5',
        baseUrl: 'https://api.anthropic.com',
        apiKeyEnv: 'ANTHROPIC_API_KEY',
      },
    ],
    ['scripted:demos/two-levels.json', { kind: 'scripted', file: 'demos/two-levels.json' }],
    ['scripted:C:\\runs\\demo.json', { kind: 'scripted', file: 'C:\\runs\\demo.json' }],
    ['replay:2024-05-01T10-00-00-abc', { kind: 'replay', run: '2024-05-01T10-00-00-abc' }],
  ])('%s', (spec, expected) => {
    expect(parseModelSpec(spec, {})).toMatchObject(expected);
  });

  it('takes base URLs from the environment', () => {
    expect(
      parseModelSpec('openai:gpt-4o', { OPENAI_BASE_URL: 'http://proxy:4000/v1' }),
    ).toMatchObject({
      baseUrl: 'http://proxy:4000/v1',
      keyRequired: false,
    });
    expect(
      parseModelSpec('anthropic:claude-3-5-haiku', { ANTHROPIC_BASE_URL: 'http://gw:8/' }),
    ).toMatchObject({
      baseUrl: 'http://gw:8',
    });
  });

  it.each([
    ['gpt-4o', 'expected SCHEME:MODEL'],
    ['openai:', 'the model name is empty'],
    ['openai-compatible:model', 'needs its base URL'],
    ['vllm:m@http://', 'is not a URL'],
    ['vllm:m@http://user:hunter2pass@host/v1', 'credentials'],
    ['scripted:', 'name the script file'],
    ['replay:', 'name the run'],
  ])('rejects %s', (spec, problem) => {
    const error = (() => {
      try {
        return parseModelSpec(spec, {});
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(InvalidModelSpecError);
    expect((error as Error).message).toContain(problem);
    expect((error as Error).message).not.toContain('hunter2pass');
  });

  it('names the known schemes for an unknown one', () => {
    expect(() => parseModelSpec('local:/models/x.gguf', {})).toThrow(UnknownModelSpecError);
    expect(() => parseModelSpec('local:/models/x.gguf', {})).toThrow(
      /openai:, openai-compatible:, vllm:.*scripted:, replay:/,
    );
    expect(parseModelSpec('local:/models/x.gguf', {}, ['local'])).toEqual({
      kind: 'extension',
      scheme: 'local',
      target: '/models/x.gguf',
    });
  });
});

describe('createProvider', () => {
  it('builds each provider kind, with keys from the environment or the options', async () => {
    expect(await createProvider('openai:gpt-4o-mini', { env })).toBeInstanceOf(
      OpenAICompatibleProvider,
    );
    expect(await createProvider('ollama:llama3.2', { env: {} })).toBeInstanceOf(
      OpenAICompatibleProvider,
    );
    expect(await createProvider('anthropic:claude-haiku-4-5', { env })).toBeInstanceOf(
      AnthropicProvider,
    );
    expect(
      await createProvider('anthropic:claude-haiku-4-5', {
        env: {},
        apiKey: 'sk-ant-from-settings-123',
      }),
    ).toBeInstanceOf(AnthropicProvider);
  });

  it('says which variable to set when a key is missing', async () => {
    await expect(createProvider('openai:gpt-4o', { env: {} })).rejects.toThrow(MissingApiKeyError);
    await expect(
      createProvider('anthropic:claude-sonnet-4', { env: { ANTHROPIC_API_KEY: ' ' } }),
    ).rejects.toThrow(/set ANTHROPIC_API_KEY/);
  });

  it('loads scripted files relative to cwd', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rlm-spec-'));
    try {
      await writeFile(join(dir, 'demo.json'), '{"0": ["FINAL(1)"]}');
      const provider = await createProvider('scripted:demo.json', { cwd: dir, env: {} });
      expect(provider).toBeInstanceOf(ScriptedProvider);
      expect(provider.spec).toBe('scripted:demo.json');
      expect((await provider.complete({ messages: [], agentId: '0', turn: 0 })).text).toBe(
        'FINAL(1)',
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('replays through the injected lookup, and says so when there is none', async () => {
    await expect(createProvider('replay:r1', { env: {} })).rejects.toThrow(ReplayUnavailableError);
    const provider = await createProvider('replay:r1', {
      env: {},
      replay: (run) => (agentId, turn) => `${run}/${agentId}/${turn}`,
    });
    expect((await provider.complete({ messages: [], agentId: '0.2', turn: 1 })).text).toBe(
      'r1/0.2/1',
    );
  });

  it('hands extra schemes to injected factories, and refuses to replace a built-in one', async () => {
    const local: Provider = {
      spec: 'local:x',
      complete: () => Promise.reject(new Error('unused')),
    };
    const made = await createProvider('local:/models/tiny', {
      env: {},
      factories: {
        local: (target) => (target === '/models/tiny' ? local : Promise.reject(new Error(target))),
      },
    });
    expect(made).toBe(local);
    await expect(createProvider('local:/m', { env: {} })).rejects.toThrow(UnknownModelSpecError);
    await expect(
      createProvider('openai:x', { env, factories: { openai: () => local } }),
    ).rejects.toThrow(ModelError);
  });
});

describe('model endpoints', () => {
  it('round-trips through a spec and takes its key from the vault, not the environment', async () => {
    const endpoint = modelEndpointSchema.parse({
      id: 'gpu-box',
      kind: 'vllm',
      baseUrl: 'http://10.1.1.5:8000/v1',
      model: 'Qwen/Qwen3-8B',
      apiKeyRef: 'gpu-box',
    });
    expect(endpointSpec(endpoint)).toBe('vllm:Qwen/Qwen3-8B@http://10.1.1.5:8000/v1');
    expect(parseModelSpec(endpointSpec(endpoint))).toMatchObject({
      model: 'Qwen/Qwen3-8B',
      baseUrl: 'http://10.1.1.5:8000/v1',
    });
    const vault = new MemoryApiKeyVault();
    await vault.set('gpu-box', 'token-abc-123456');
    expect(await createEndpointProvider(endpoint, vault)).toBeInstanceOf(OpenAICompatibleProvider);
    await expect(
      createEndpointProvider(
        {
          id: 'a',
          kind: 'anthropic',
          baseUrl: 'https://api.anthropic.com',
          model: 'claude-opus-4-1',
          apiKeyRef: 'none',
        },
        vault,
      ),
    ).rejects.toThrow(MissingApiKeyError);
    expect(
      modelEndpointSchema.safeParse({ ...endpoint, baseUrl: 'file:///etc/passwd' }).success,
    ).toBe(false);
  });
});
