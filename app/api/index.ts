// app/api: the one typed contract between the engine and any front end. Pure (zod only), so the
// renderer, the preload and the engine all import it.
export * from './commands.ts';
export * from './events.ts';
export * from './papers.ts';
export * from './runs.ts';
export * from './settings-endpoints.ts';
export * from './evals.ts';
export * from './datasets.ts';
export * from './training.ts';
export * from './cluster.ts';
export * from './protocol.ts';
export * from './errors.ts';
export { parsePayload } from './validate.ts';
export {
  createApiClient,
  createBridgeTransport,
  exposedApiKey,
  type ApiClient,
  type ExposedBridge,
  type Transport,
  type Unsubscribe,
} from './client.ts';
