#!/usr/bin/env node
// Launcher of `rlm-studio`. The CLI is TypeScript run by Node 24's type stripping; on an older
// Node this re-runs itself with the project's pinned Node 24 (node_modules/node).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import nodeModule from 'node:module';
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
// Node keeps the modules it compiled (type-stripped and turned into bytecode) in node_modules/.cache,
// so a later start skips that work: `rlm-studio --help` 0.40 -> 0.21 s. There rather than the
// shared temp folder, where another user could leave compiled code for us to run. The extraction
// workers use the same folder (app/papers/extract/pool.ts). NODE_DISABLE_COMPILE_CACHE=1 turns it off.
nodeModule.enableCompileCache(
  fileURLToPath(new URL('../node_modules/.cache/rlm-studio/compile', import.meta.url)),
);
await import('../host/cli/main.ts');
