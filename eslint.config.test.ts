// Proves each layering rule of DESIGN.md fires: lints small violating files, placed in each layer,
// with the project's real ESLint config, and checks the rule and its message.
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';
import { layeringMessages } from './eslint.config.js';

// The virtual files are not on disk, so type-aware rules are switched off for them; every other rule,
// the layering rules included, is the project's own config.
const eslint = new ESLint({
  cwd: import.meta.dirname,
  overrideConfig: tseslint.configs.disableTypeChecked,
});

async function restrictedImportMessages(
  filePath: string,
  code: string,
  ruleId = 'no-restricted-imports',
): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? [])
    .filter((message) => message.ruleId === ruleId)
    .map((message) => {
      // ESLint prefixes our message with the import and the pattern; keep only which rule it was.
      const rule = Object.values(layeringMessages).find((text) => message.message.includes(text));
      return rule ?? message.message;
    });
}

describe('layering rules', () => {
  it.each([
    [
      'app/papers/x.ts',
      "import { train } from '../../training/engine/index.ts';\nexport { train };\n",
    ],
    ['app/store/x.ts', "import { shell } from '../../electron/main.ts';\nexport { shell };\n"],
    ['app/x.ts', "import { App } from '../renderer/src/App.tsx';\nexport { App };\n"],
    [
      'app/rlm/x.ts',
      "import { composeEngine } from '../../host/index.ts';\nexport { composeEngine };\n",
    ],
    [
      'app/rlm/x.test.ts',
      "import { composeEngine } from '../../host/index.ts';\nexport { composeEngine };\n",
    ],
  ])('app/ may not import an outer layer (%s)', async (file, code) => {
    expect(await restrictedImportMessages(file, code)).toEqual([
      layeringMessages.appImportsOuterLayer,
    ]);
  });

  it.each([
    [
      'training/rl/x.ts',
      "import { composeEngine } from '../../host/index.ts';\nexport { composeEngine };\n",
    ],
    ['training/rl/x.test.ts', "import { Host } from '../../host/index.ts';\nexport { Host };\n"],
    ['training/engine/x.ts', "import { main } from '../../electron/main.ts';\nexport { main };\n"],
  ])('training/ may import app/ only (%s)', async (file, code) => {
    expect(await restrictedImportMessages(file, code)).toEqual([
      layeringMessages.trainingImportsOuterLayer,
    ]);
  });

  it.each([
    ['host/cli/x.ts', "import { main } from '../../electron/main.ts';\nexport { main };\n"],
    ['host/x.ts', "import { App } from '../renderer/src/App.tsx';\nexport { App };\n"],
  ])('host/ may not import the shells (%s)', async (file, code) => {
    expect(await restrictedImportMessages(file, code)).toEqual([layeringMessages.hostImportsShell]);
  });

  it.each([
    ["import { openWorkspace } from '../app/store/index.ts';\nexport { openWorkspace };\n"],
    [
      "import { rayClusterBackend } from '../training/cluster/index.ts';\nexport { rayClusterBackend };\n",
    ],
    ["import { RunEvent } from '../app/api/runs.ts';\nexport { RunEvent };\n"],
  ])('electron/ may import host/ and app/api only: %s', async (code) => {
    expect(await restrictedImportMessages('electron/x.ts', code)).toEqual([
      layeringMessages.electronImportsEngine,
    ]);
  });

  it.each([
    ['host/children/x.ts', "import { spawn } from 'node:child_process';\nexport { spawn };\n"],
    ['app/repl/x.ts', "import { fork } from 'child_process';\nexport { fork };\n"],
    ['training/engine/x.ts', "import { Worker } from 'node:worker_threads';\nexport { Worker };\n"],
    ['electron/x.ts', "import { execFile } from 'node:child_process';\nexport { execFile };\n"],
  ])('a child starts only through app/children, never from a path (%s)', async (file, code) => {
    expect(await restrictedImportMessages(file, code)).toEqual([
      layeringMessages.childStartedByPath,
    ]);
  });

  it.each([
    [
      'host/children/x.ts',
      "export const u = new URL('../../training/rl/main.ts', import.meta.url);\n",
    ],
    ['app/papers/x.ts', "export const u = new URL('./worker.cjs', import.meta.url);\n"],
  ])('a script is never addressed by a URL (%s)', async (file, code) => {
    expect(await restrictedImportMessages(file, code, 'no-restricted-syntax')).toEqual([
      layeringMessages.childStartedByPath,
    ]);
  });

  it.each([
    ["import { readFileSync } from 'node:fs';\nexport { readFileSync };\n"],
    ["import { readFileSync } from 'fs';\nexport { readFileSync };\n"],
    ["import { spawn } from 'child_process';\nexport { spawn };\n"],
  ])('renderer/ may not import Node built-ins: %s', async (code) => {
    const messages = await restrictedImportMessages('renderer/src/x.ts', code);
    expect(new Set(messages)).toEqual(new Set([layeringMessages.rendererImportsNode]));
  });

  it.each([
    ["import { openWorkspace } from '../../app/store/index.ts';\nexport { openWorkspace };\n"],
    ["import { commands } from '../../app/api/commands.ts';\nexport { commands };\n"],
  ])('renderer/ may import nothing of app/ but app/api: %s', async (code) => {
    expect(await restrictedImportMessages('renderer/src/x.ts', code)).toEqual([
      layeringMessages.rendererImportsEngine,
    ]);
  });

  it.each([
    ["import { main } from '../../electron/main.ts';\nexport { main };\n"],
    ["import { Host } from '../../host/index.ts';\nexport { Host };\n"],
  ])('renderer/ may not import training/, host/ or electron/: %s', async (code) => {
    expect(await restrictedImportMessages('renderer/src/x.ts', code)).toEqual([
      layeringMessages.rendererImportsOuterLayer,
    ]);
  });

  it('allows what the layers may import', async () => {
    const rendererOk = "import { commands } from '../../app/api/index.ts';\nexport { commands };\n";
    expect(await restrictedImportMessages('renderer/src/x.ts', rendererOk)).toEqual([]);
    const appOk =
      "import { join } from 'node:path';\nimport { commands } from '../api/index.ts';\nexport { join, commands };\n";
    expect(await restrictedImportMessages('app/store/x.ts', appOk)).toEqual([]);
    const trainingOk = "import { commands } from '../../app/api/index.ts';\nexport { commands };\n";
    expect(await restrictedImportMessages('training/engine/x.ts', trainingOk)).toEqual([]);
    const foldsOk = "import { foldRun } from '../../app/run-log/index.ts';\nexport { foldRun };\n";
    expect(await restrictedImportMessages('renderer/src/x.ts', foldsOk)).toEqual([]);
    const hostOk =
      "import { RunStore } from '../../app/store/index.ts';\nimport { rlmEnvironment } from '../../training/rl/index.ts';\nexport { RunStore, rlmEnvironment };\n";
    expect(await restrictedImportMessages('host/compose/x.ts', hostOk)).toEqual([]);
    const electronOk =
      "import { composeEngine } from '../host/index.ts';\nimport { commands } from '../app/api/index.ts';\nexport { composeEngine, commands };\n";
    expect(await restrictedImportMessages('electron/x.ts', electronOk)).toEqual([]);
    const starterOk = "import { spawn } from 'node:child_process';\nexport { spawn };\n";
    expect(await restrictedImportMessages('app/children/start.ts', starterOk)).toEqual([]);
    expect(await restrictedImportMessages('host/cli/x.test.ts', starterOk)).toEqual([]);
    const dataUrlOk = "export const u = new URL('./fixtures/x.json', import.meta.url);\n";
    expect(await restrictedImportMessages('app/x.ts', dataUrlOk, 'no-restricted-syntax')).toEqual(
      [],
    );
  });

  it('fails on explicit any (formatting is checked by Prettier: scripts/lint.test.ts)', async () => {
    const [result] = await eslint.lintText('export const x: any = 1\n', { filePath: 'app/x.ts' });
    const rules = (result?.messages ?? []).map((message) => message.ruleId);
    expect(rules).toContain('@typescript-eslint/no-explicit-any');
  });
});

describe('plain JavaScript files', () => {
  it('are parsed without the TypeScript project service (it cost a cold lint ~5 s)', async () => {
    const config: unknown = await new ESLint({ cwd: import.meta.dirname }).calculateConfigForFile(
      'bin/rlm-studio.js',
    );
    expect(config).toMatchObject({
      languageOptions: {
        parserOptions: { projectService: false, project: false },
        globals: { process: expect.anything() as unknown },
      },
    });
  });
});
