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

async function restrictedImportMessages(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? [])
    .filter((message) => message.ruleId === 'no-restricted-imports')
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
  ])('app/ may not import an outer layer (%s)', async (file, code) => {
    expect(await restrictedImportMessages(file, code)).toEqual([
      layeringMessages.appImportsOuterLayer,
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

  it('renderer/ may not import training/ or electron/', async () => {
    const code = "import { main } from '../../electron/main.ts';\nexport { main };\n";
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
