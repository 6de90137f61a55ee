// The `local:` scheme for createProvider: loads the model once per path and backend, starts the
// backend chosen at start-up (RLM_STUDIO_BACKEND=webgpu|wasm forces one) and serves it.
import type { ProviderFactory } from '../../../app/models/index.ts';
import { startBackend, type BackendChoice } from '../kernels/backend.ts';
import { createDecoder } from './create-decoder.ts';
import { WeightArenas } from '../kernels/weight-arenas.ts';
import { EngineError } from '../errors.ts';
import { loadLocalModel } from '../loading/local-model.ts';
import { LocalProvider } from './local-provider.ts';

export interface LocalFactoryOptions {
  backend?: BackendChoice;
  /** Sequences decoded together (default 4). */
  maxBatch?: number;
  maxSeqLen?: number;
}

export function backendFromEnv(env: Record<string, string | undefined>): BackendChoice {
  const value = env.RLM_STUDIO_BACKEND ?? 'auto';
  if (value === 'auto' || value === 'wasm' || value === 'webgpu') return value;
  throw new EngineError(`RLM_STUDIO_BACKEND is '${value}'; use webgpu, wasm or auto`);
}

export function localProviderFactory(options: LocalFactoryOptions = {}): ProviderFactory {
  const loaded = new Map<string, Promise<LocalProvider>>();
  return (target, context) => {
    const path = target.trim();
    if (path === '') throw new EngineError("'local:' needs a path: local:PATH/TO/MODEL");
    const backend = options.backend ?? backendFromEnv(context.env);
    const key = `${backend}|${path}`;
    let provider = loaded.get(key);
    if (!provider) {
      provider = (async () => {
        const info = await startBackend(backend);
        // On the CPU the weights are read straight into the decoder's WebAssembly memory.
        const arenas = info.backend === 'wasm' ? WeightArenas.create() : null;
        const local = await loadLocalModel(path, arenas ? { store: arenas } : {});
        const decoder = createDecoder(local.model, info, {
          maxBatch: options.maxBatch ?? 4,
          ...(options.maxSeqLen !== undefined ? { maxSeqLen: options.maxSeqLen } : {}),
          ...(arenas ? { arenas } : {}),
        });
        return new LocalProvider({ spec: context.spec, local, decoder });
      })();
      // A failed load is not cached: the next run may find the file.
      provider.catch(() => loaded.delete(key));
      loaded.set(key, provider);
    }
    return provider;
  };
}
