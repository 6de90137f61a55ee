// A model endpoint as the Settings page keeps it: which API, where, which model, and a reference
// to its key in the ApiKeyVault (never the key itself, so endpoints can be listed and exported).
import { z } from 'zod';
import { modelEndpointKindIds } from '../api/index.ts';
import type { ApiKeyVault } from './api-key-vault.ts';
import { createProvider, type CreateProviderOptions } from './create-provider.ts';
import { formatModelSpec } from './model-spec.ts';
import type { Provider } from './provider.ts';

/** The kinds of server an endpoint can be: the contract's list (app/api/settings-endpoints.ts). */
export const modelEndpointKinds = modelEndpointKindIds;

export type ModelEndpointKind = (typeof modelEndpointKinds)[number];

export const modelEndpointSchema = z.strictObject({
  id: z.string().min(1),
  kind: z.enum(modelEndpointKinds),
  baseUrl: z.url({ protocol: /^https?$/ }),
  model: z.string().min(1),
  /** Where its key sits in the vault; absent for servers that take none. */
  apiKeyRef: z.string().min(1).optional(),
});

export type ModelEndpoint = z.infer<typeof modelEndpointSchema>;

export function endpointSpec(endpoint: ModelEndpoint): string {
  return formatModelSpec(endpoint.kind, endpoint.model, endpoint.baseUrl);
}

/**
 * A provider for a saved endpoint, with its key from the vault. The environment is not read:
 * an endpoint uses its own key or none.
 */
export async function createEndpointProvider(
  endpoint: ModelEndpoint,
  vault: ApiKeyVault,
  options: Omit<CreateProviderOptions, 'apiKey' | 'env'> = {},
): Promise<Provider> {
  const apiKey = endpoint.apiKeyRef === undefined ? undefined : await vault.get(endpoint.apiKeyRef);
  return createProvider(endpointSpec(endpoint), { ...options, env: {}, apiKey });
}
