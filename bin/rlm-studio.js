#!/usr/bin/env node
// Launcher of `rlm-studio`. The CLI is TypeScript run by Node 24's type stripping; on an older
// Node this re-runs itself with the project's pinned Node 24 (node_modules/node).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  const pinned = fileURLToPath(new URL('../node_modules/node/bin/node', import.meta.url));
  if (!existsSync(pinned)) {
    console.error(
      `rlm-studio needs Node 24 or newer (this is ${process.version}); run \`npm install\` in the project to get the pinned one.`,
    );
    process.exit(1);
  }
  const result = spawnSync(pinned, [fileURLToPath(import.meta.url), ...process.argv.slice(2)], {
    stdio: 'inherit',
  });
  process.exit(result.status ?? 1);
}
// The composition root: training/ adds the local model engine (`local:` models, `generate`).
const { installCliExtensions } = await import('../app/cli/index.ts');
const { engineCliExtensions } = await import('../training/engine/cli.ts');
const { rlCliExtensions } = await import('../training/rl/cli.ts');
installCliExtensions(engineCliExtensions());
installCliExtensions(rlCliExtensions());
await import('../app/cli/main.ts');
