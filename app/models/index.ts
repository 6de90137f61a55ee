// app/models: every way the engine talks to a model, behind one Provider interface: OpenAI-
// compatible servers and Anthropic over their official SDKs, scripts, replays of stored runs.
export type {
  ChatMessage,
  Completion,
  CompletionRequest,
  Provider,
  TokenUsage,
} from './provider.ts';
export * from './errors.ts';
export { redactSecrets, REDACTED } from './redact.ts';
export {
  KNOWN_MODEL_PRICES,
  costOf,
  estimateTokens,
  estimateUsage,
  priceOf,
  type ModelPrice,
  type PriceTable,
} from './pricing.ts';
export { DEFAULT_RETRY_POLICY, DEFAULT_TIMEOUT_MS, type RetryPolicy } from './retry.ts';
export type { HttpProviderOptions } from './http-options.ts';
export { OpenAICompatibleProvider, type OpenAICompatibleOptions } from './openai-provider.ts';
export { AnthropicProvider, type AnthropicOptions } from './anthropic-provider.ts';
export {
  ScriptedProvider,
  parseScript,
  type ModelScript,
  type ScriptedProviderOptions,
} from './scripted-provider.ts';
export { ReplayProvider, type ReplayLookup } from './replay-provider.ts';
export {
  ANTHROPIC_BASE_URL,
  BUILT_IN_SCHEMES,
  DEFAULT_BASE_URLS,
  OPENAI_BASE_URL,
  formatModelSpec,
  parseModelSpec,
  type Env,
  type ModelSpec,
  type OpenAICompatibleScheme,
} from './model-spec.ts';
export {
  createProvider,
  type CreateProviderOptions,
  type ProviderFactory,
  type ProviderFactoryContext,
} from './create-provider.ts';
export {
  createEndpointProvider,
  endpointSpec,
  modelEndpointKinds,
  modelEndpointSchema,
  type ModelEndpoint,
  type ModelEndpointKind,
} from './endpoint.ts';
export {
  FileApiKeyVault,
  MemoryApiKeyVault,
  VAULT_KEYS_FILE,
  VAULT_SECRET_FILE,
  type ApiKeyVault,
} from './api-key-vault.ts';
export { OLLAMA_DEFAULT_ORIGIN, discoverOllama } from './ollama-discovery.ts';
export {
  ConcurrencyLimitedProvider,
  ConcurrencyLimiter,
  limitConcurrency,
} from './concurrency-limiter.ts';
