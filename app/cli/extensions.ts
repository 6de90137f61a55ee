// What the launcher adds to the CLI from outer layers (training/), since app/ may not import them:
// extra model schemes (`local:`), extra subcommands (`generate`) and the cluster backend. bin/rlm-studio.js installs
// them before the program is built; app/ only sees the interfaces.
import type { Command } from 'commander';
import type { ClusterBackend } from '../host/index.ts';
import type { ProviderFactory } from '../models/index.ts';

export interface CliExtensions {
  providers?: Readonly<Record<string, ProviderFactory>>;
  commands?: readonly (() => Command)[];
  /** SkyRL export and Ray jobs for the engine's cluster commands (training/cluster). */
  cluster?: ClusterBackend;
}

let installed: CliExtensions = {};

export function installCliExtensions(extensions: CliExtensions): void {
  const cluster = extensions.cluster ?? installed.cluster;
  installed = {
    providers: { ...installed.providers, ...extensions.providers },
    commands: [...(installed.commands ?? []), ...(extensions.commands ?? [])],
    ...(cluster ? { cluster } : {}),
  };
}

export function cliExtensions(): CliExtensions {
  return installed;
}
