// The model-endpoint part of the contract (Settings > Models): saved endpoints, their keys, the
// local Ollama server. Keys travel only inward (models.saveEndpoint's apiKey); nothing the engine
// sends back holds one, only `hasKey`.
import { z } from 'zod';

/** The one list of endpoint kinds: app/models' endpoints, specs and defaults are typed from it. */
export const modelEndpointKindIds = [
  'openai',
  'openai-compatible',
  'vllm',
  'sglang',
  'ollama',
  'lmstudio',
  'anthropic',
] as const;
export const ModelEndpointKindId = z.enum(modelEndpointKindIds);
export type ModelEndpointKindId = z.infer<typeof ModelEndpointKindId>;

/**
 * Where each kind of server listens unless told otherwise ('' where there is no default: an
 * OpenAI-compatible server is wherever the user runs it). app/models' spec parser reads these.
 */
export const defaultEndpointBaseUrls: Readonly<Record<ModelEndpointKindId, string>> = {
  openai: 'https://api.openai.com/v1',
  'openai-compatible': '',
  vllm: 'http://127.0.0.1:8000/v1',
  sglang: 'http://127.0.0.1:30000/v1',
  ollama: 'http://127.0.0.1:11434/v1',
  lmstudio: 'http://127.0.0.1:1234/v1',
  anthropic: 'https://api.anthropic.com',
};

/** Kinds whose server refuses every call without a key. */
export const keyRequiredKinds: readonly ModelEndpointKindId[] = ['openai', 'anthropic'];

export const EndpointBaseUrl = z
  .url({ protocol: /^https?$/, error: 'a URL starting with http:// or https://' })
  .refine((url) => {
    const parsed = URL.parse(url);
    return parsed === null || (parsed.username === '' && parsed.password === '');
  }, 'put credentials in the API key field, not in the URL');

const endpointFields = {
  name: z.string().trim().min(1, 'give the endpoint a name').max(100),
  kind: ModelEndpointKindId,
  baseUrl: EndpointBaseUrl,
  model: z.string().trim().min(1, 'name the model the server serves').max(300),
};

export const EndpointId = z.string().min(1).max(100);

/** An endpoint as the engine shows it: never its key, only whether one is stored. */
export const ModelEndpointView = z.object({
  id: EndpointId,
  ...endpointFields,
  /** The model spec runs use for it, e.g. 'vllm:Qwen/Qwen3-8B@http://127.0.0.1:8000/v1'. */
  spec: z.string(),
  hasKey: z.boolean(),
});
export type ModelEndpointView = z.infer<typeof ModelEndpointView>;

export const EndpointDraft = z
  .object({
    /** Absent for a new endpoint; the engine picks its id. */
    id: EndpointId.optional(),
    ...endpointFields,
  })
  .strict();
export type EndpointDraft = z.infer<typeof EndpointDraft>;

const ErrorInfo = z.object({ name: z.string(), message: z.string() });

export const endpointCommands = {
  'models.endpoints': {
    summary: 'The saved model endpoints (without their keys).',
    request: z.object({}).strict(),
    response: z.object({ endpoints: z.array(ModelEndpointView) }),
  },
  'models.saveEndpoint': {
    summary:
      'Adds or changes an endpoint; apiKey (write-only) replaces its stored key, forgetKey drops it.',
    request: z
      .object({
        endpoint: EndpointDraft,
        apiKey: z.string().trim().min(1, 'paste the whole key, or leave the field out').optional(),
        forgetKey: z.boolean().default(false),
      })
      .strict()
      .refine((request) => !(request.forgetKey && request.apiKey !== undefined), {
        path: ['forgetKey'],
        error: 'either replace the key (apiKey) or forget it (forgetKey), not both',
      }),
    response: z.object({ endpoint: ModelEndpointView }),
  },
  'models.deleteEndpoint': {
    summary: 'Removes an endpoint and its stored key.',
    request: z.object({ id: EndpointId }).strict(),
    response: z.object({ deleted: z.boolean() }),
  },
  'models.discoverOllama': {
    summary: 'Asks the local Ollama server on its default port which models it serves.',
    request: z.object({}).strict(),
    response: z.object({
      /** True when a server answered with at least one model. */
      available: z.boolean(),
      baseUrl: z.string(),
      models: z.array(z.string()),
    }),
  },
  'models.testEndpoint': {
    summary: 'Sends one short message to an endpoint; a failure comes back named and redacted.',
    request: z.object({ id: EndpointId }).strict(),
    response: z.discriminatedUnion('ok', [
      z.object({ ok: z.literal(true), reply: z.string(), latencyMs: z.number() }),
      z.object({ ok: z.literal(false), error: ErrorInfo, latencyMs: z.number() }),
    ]),
  },
} as const;

export const endpointEvents = [
  z.object({ kind: z.literal('models.endpointsChanged'), at: z.number() }),
] as const;
