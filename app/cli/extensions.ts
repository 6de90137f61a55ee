// What the launcher adds to the CLI from outer layers (training/), since app/ may not import them:
// extra model schemes (`local:`) and extra subcommands (`generate`). bin/rlm-studio.js installs
// them before the program is built; app/ only sees the interfaces.
import type { Command } from 'commander';
import type { ProviderFactory } from '../models/index.ts';

export interface CliExtensions {
  providers?: Readonly<Record<string, ProviderFactory>>;
  commands?: readonly (() => Command)[];
}

let installed: CliExtensions = {};

export function installCliExtensions(extensions: CliExtensions): void {
  installed = {
    providers: { ...installed.providers, ...extensions.providers },
    commands: [...(installed.commands ?? []), ...(extensions.commands ?? [])],
  };
}

export function cliExtensions(): CliExtensions {
  return installed;
}
