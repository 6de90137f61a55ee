// What the engine adds to `rlm-studio` (installed by bin/rlm-studio.js): the `local:` model scheme
// and the `generate` command. Both load the engine lazily, so other commands start as fast as before.
import type { CliExtensions } from '../../app/cli/index.ts';
import type { ProviderFactory } from '../../app/models/index.ts';
import { generateCommand } from './generate-command.ts';

export function engineCliExtensions(): CliExtensions {
  let factory: ProviderFactory | undefined;
  const local: ProviderFactory = async (target, context) => {
    if (!factory) {
      const { localProviderFactory } = await import('./local-provider-factory.ts');
      factory = localProviderFactory();
    }
    return factory(target, context);
  };
  return { providers: { local }, commands: [generateCommand] };
}
