// Model specs, the one-line names of a model used by the CLI and settings: `openai:gpt-4o-mini`,
// `vllm:Qwen/Qwen3-8B@http://gpu:8000/v1`, `scripted:demo.json`, ... Parsing is pure: it reads
// the given env, never process.env, and never holds an API key (only the name of its variable).
import {
  defaultEndpointBaseUrls,
  modelEndpointKindIds,
  type ModelEndpointKindId,
} from '../api/index.ts';
import { InvalidModelSpecError, UnknownModelSpecError } from './errors.ts';

export type Env = Readonly<Record<string, string | undefined>>;

/** Schemes served by an OpenAI-compatible chat completions endpoint. */
export type OpenAICompatibleScheme = Exclude<ModelEndpointKindId, 'anthropic'>;

/** The self-hosted servers, each with a default address. */
type SelfHostedScheme = Exclude<OpenAICompatibleScheme, 'openai' | 'openai-compatible'>;

export type ModelSpec =
  | {
      kind: 'openai-compatible';
      scheme: OpenAICompatibleScheme;
      model: string;
      baseUrl: string;
      /** The environment variable a key is read from, when the scheme has one. */
      apiKeyEnv: string | undefined;
      keyRequired: boolean;
    }
  | {
      kind: 'anthropic';
      scheme: 'anthropic';
      model: string;
      baseUrl: string;
      apiKeyEnv: 'ANTHROPIC_API_KEY';
      keyRequired: true;
    }
  | { kind: 'scripted'; scheme: 'scripted'; file: string }
  | { kind: 'replay'; scheme: 'replay'; run: string }
  /** A scheme added by the composition root (e.g. `local:PATH`), passed on untouched. */
  | { kind: 'extension'; scheme: string; target: string };

// Addresses and kinds come from the contract's one table (app/api/settings-endpoints.ts), which
// the Settings form reads too.
export const OPENAI_BASE_URL = defaultEndpointBaseUrls.openai;
export const ANTHROPIC_BASE_URL = defaultEndpointBaseUrls.anthropic;

/** Where each self-hosted server listens by default. */
export const DEFAULT_BASE_URLS: Readonly<Record<SelfHostedScheme, string>> = {
  vllm: defaultEndpointBaseUrls.vllm,
  sglang: defaultEndpointBaseUrls.sglang,
  ollama: defaultEndpointBaseUrls.ollama,
  lmstudio: defaultEndpointBaseUrls.lmstudio,
};

/** Every scheme a spec may start with, besides those the composition root adds. */
export const BUILT_IN_SCHEMES = [...modelEndpointKindIds, 'scripted', 'replay'] as const;

const SPEC = /^([a-z][a-z0-9-]*):(.*)$/s;
const URL_PART = /@(https?:\/\/.*)$/s;

export function parseModelSpec(
  spec: string,
  env: Env = {},
  extraSchemes: readonly string[] = [],
): ModelSpec {
  const match = SPEC.exec(spec.trim());
  if (!match) {
    throw new InvalidModelSpecError(
      spec,
      'expected SCHEME:MODEL, e.g. openai:gpt-4o-mini or scripted:demo.json',
    );
  }
  const scheme = match[1] ?? '';
  const rest = (match[2] ?? '').trim();
  switch (scheme) {
    case 'openai': {
      const { model, url } = splitModelAndUrl(spec, rest);
      const baseUrl = url ?? nonEmpty(env.OPENAI_BASE_URL) ?? OPENAI_BASE_URL;
      // A key is needed by OpenAI itself; a server behind OPENAI_BASE_URL may not want one.
      const keyRequired = trimSlash(baseUrl) === OPENAI_BASE_URL;
      return http(spec, 'openai', model, baseUrl, 'OPENAI_API_KEY', keyRequired);
    }
    case 'openai-compatible': {
      const { model, url } = splitModelAndUrl(spec, rest);
      if (url === undefined) {
        throw new InvalidModelSpecError(
          spec,
          "an OpenAI-compatible server needs its base URL: 'openai-compatible:MODEL@http://host:port/v1'",
        );
      }
      return http(spec, 'openai-compatible', model, url, undefined, false);
    }
    case 'vllm':
    case 'sglang':
    case 'ollama':
    case 'lmstudio': {
      const { model, url } = splitModelAndUrl(spec, rest);
      return http(spec, scheme, model, url ?? DEFAULT_BASE_URLS[scheme], undefined, false);
    }
    case 'anthropic': {
      const { model, url } = splitModelAndUrl(spec, rest);
      const baseUrl = checkUrl(spec, url ?? nonEmpty(env.ANTHROPIC_BASE_URL) ?? ANTHROPIC_BASE_URL);
      return {
        kind: 'anthropic',
        scheme,
        model,
        baseUrl,
        apiKeyEnv: 'ANTHROPIC_API_KEY',
        keyRequired: true,
      };
    }
    case 'scripted':
      if (rest === '')
        throw new InvalidModelSpecError(spec, "name the script file: 'scripted:FILE.json'");
      return { kind: 'scripted', scheme, file: rest };
    case 'replay':
      if (rest === '')
        throw new InvalidModelSpecError(spec, "name the run to replay: 'replay:RUN_ID'");
      return { kind: 'replay', scheme, run: rest };
    default:
      if (extraSchemes.includes(scheme)) {
        if (rest === '') throw new InvalidModelSpecError(spec, `say what '${scheme}:' should load`);
        return { kind: 'extension', scheme, target: rest };
      }
      throw new UnknownModelSpecError(spec, scheme, [...BUILT_IN_SCHEMES, ...extraSchemes]);
  }
}

function http(
  spec: string,
  scheme: OpenAICompatibleScheme,
  model: string,
  baseUrl: string,
  apiKeyEnv: string | undefined,
  keyRequired: boolean,
): ModelSpec {
  return {
    kind: 'openai-compatible',
    scheme,
    model,
    baseUrl: checkUrl(spec, baseUrl),
    apiKeyEnv,
    keyRequired,
  };
}

/** `MODEL@http://host/v1`; an `@` not followed by a URL stays in the model name. */
function splitModelAndUrl(spec: string, rest: string): { model: string; url: string | undefined } {
  const urlMatch = URL_PART.exec(rest);
  const model = (urlMatch ? rest.slice(0, urlMatch.index) : rest).trim();
  if (model === '') {
    throw new InvalidModelSpecError(
      spec,
      'the model name is empty; write it after the scheme, e.g. ollama:llama3.2',
    );
  }
  return { model, url: urlMatch?.[1] };
}

function checkUrl(spec: string, url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new InvalidModelSpecError(
      spec,
      `'${url}' is not a URL; write it like http://127.0.0.1:8000/v1`,
    );
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new InvalidModelSpecError(spec, `'${url}' must start with http:// or https://`);
  }
  if (parsed.username !== '' || parsed.password !== '') {
    throw new InvalidModelSpecError(spec, 'put credentials in the API key setting, not in the URL');
  }
  return trimSlash(url);
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

/** The spec that names a model at an endpoint: the inverse of parseModelSpec for HTTP schemes. */
export function formatModelSpec(
  scheme: OpenAICompatibleScheme | 'anthropic',
  model: string,
  baseUrl: string,
): string {
  return `${scheme}:${model}@${trimSlash(baseUrl)}`;
}
