// Turns a model spec into a Provider. Keys come from options.apiKey (settings, a CLI flag) or the
// scheme's environment variable; the composition root injects what this layer cannot build
// itself: the run store's lookup for `replay:` and factories for extra schemes such as `local:`.
import { resolve } from 'node:path';
import { AnthropicProvider } from './anthropic-provider.ts';
import { MissingApiKeyError, ModelError, ReplayUnavailableError } from './errors.ts';
import { BUILT_IN_SCHEMES, parseModelSpec, type Env, type ModelSpec } from './model-spec.ts';
import { OpenAICompatibleProvider } from './openai-provider.ts';
import { KNOWN_MODEL_PRICES } from './pricing.ts';
import type { Provider } from './provider.ts';
import { ReplayProvider, type ReplayLookup } from './replay-provider.ts';
import type { RetryPolicy } from './retry.ts';
import { ScriptedProvider } from './scripted-provider.ts';

export interface ProviderFactoryContext {
  spec: string;
  env: Env;
  options: CreateProviderOptions;
}

/** Builds a provider for an extra scheme; `target` is what follows `scheme:`. */
export type ProviderFactory = (
  target: string,
  context: ProviderFactoryContext,
) => Provider | Promise<Provider>;

export interface CreateProviderOptions {
  /** Read for keys and base URLs; defaults to process.env. */
  env?: Env | undefined;
  /** A key from settings or a CLI flag; wins over the environment. */
  apiKey?: string | undefined;
  /** The run store's lookup for `replay:RUN`. */
  replay?: ((run: string) => ReplayLookup) | undefined;
  /** Extra schemes, e.g. `{ local: (path) => new LocalProvider(path) }`. */
  factories?: Readonly<Record<string, ProviderFactory>> | undefined;
  /** Scripted files are resolved against this; defaults to process.cwd(). */
  cwd?: string | undefined;
  retry?: Partial<RetryPolicy> | undefined;
  timeoutMs?: number | undefined;
}

export async function createProvider(
  spec: string,
  options: CreateProviderOptions = {},
): Promise<Provider> {
  const env = options.env ?? process.env;
  const factories = options.factories ?? {};
  const clash = Object.keys(factories).find((scheme) =>
    (BUILT_IN_SCHEMES as readonly string[]).includes(scheme),
  );
  if (clash !== undefined) {
    throw new ModelError(
      `a provider factory was given for the built-in scheme '${clash}:'; give extra schemes only`,
    );
  }
  const parsed = parseModelSpec(spec, env, Object.keys(factories));
  return build(spec.trim(), parsed, env, options);
}

async function build(
  spec: string,
  parsed: ModelSpec,
  env: Env,
  options: CreateProviderOptions,
): Promise<Provider> {
  switch (parsed.kind) {
    case 'openai-compatible': {
      const apiKey = keyFor(spec, parsed.apiKeyEnv, parsed.keyRequired, env, options);
      const isOpenAI = parsed.scheme === 'openai';
      return new OpenAICompatibleProvider({
        spec,
        model: parsed.model,
        baseUrl: parsed.baseUrl,
        apiKey,
        keySource: parsed.apiKeyEnv
          ? `${parsed.apiKeyEnv} or Settings > Models`
          : 'the API key set for this endpoint in Settings > Models',
        prices: isOpenAI ? KNOWN_MODEL_PRICES : null,
        maxTokensField: isOpenAI ? 'max_completion_tokens' : 'max_tokens',
        retry: options.retry,
        timeoutMs: options.timeoutMs,
      });
    }
    case 'anthropic': {
      const apiKey = keyFor(spec, parsed.apiKeyEnv, true, env, options) ?? '';
      return new AnthropicProvider({
        spec,
        model: parsed.model,
        baseUrl: parsed.baseUrl,
        apiKey,
        prices: KNOWN_MODEL_PRICES,
        retry: options.retry,
        timeoutMs: options.timeoutMs,
      });
    }
    case 'scripted':
      return ScriptedProvider.fromFile(resolve(options.cwd ?? process.cwd(), parsed.file), spec);
    case 'replay': {
      if (!options.replay) throw new ReplayUnavailableError(spec);
      return new ReplayProvider(parsed.run, options.replay(parsed.run));
    }
    case 'extension': {
      const factory = options.factories?.[parsed.scheme];
      if (!factory) throw new ModelError(`no provider factory for '${parsed.scheme}:'`);
      return factory(parsed.target, { spec, env, options });
    }
  }
}

function keyFor(
  spec: string,
  envVar: string | undefined,
  required: boolean,
  env: Env,
  options: CreateProviderOptions,
): string | undefined {
  const given = options.apiKey?.trim();
  const fromEnv = envVar === undefined ? undefined : env[envVar]?.trim();
  const key = [given, fromEnv].find((value) => value !== undefined && value !== '');
  if (key === undefined && required) {
    throw new MissingApiKeyError(spec, envVar ?? 'an API key');
  }
  return key;
}
