// `local:PATH` models decoded in this process (the CLI and `rlm-studio serve`): training/engine's
// provider, loaded on the first such spec, so commands that never name one start as fast as
// before. The desktop shell decodes in a child instead (host/children/local-model-process.ts).
import type { ProviderFactory } from '../../app/models/index.ts';

export function inProcessLocalModels(): ProviderFactory {
  let factory: ProviderFactory | undefined;
  return async (target, context) => {
    if (!factory) {
      const { localProviderFactory } = await import('../../training/engine/index.ts');
      factory = localProviderFactory();
    }
    return factory(target, context);
  };
}
