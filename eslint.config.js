// Lint, format and layering rules. The layering rules are DESIGN.md's dependency rules made
// checkable: eslint.config.test.ts proves each one fires on a violating file.
import { builtinModules } from 'node:module';
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import prettierConfig from 'eslint-config-prettier/flat';

const nodeBuiltins = [...new Set(builtinModules.map((name) => name.replace(/^node:/, '')))];

/** Relative imports that climb out of a folder into a sibling top-level layer. */
const layerImport = (layers) => `^(\\.\\./)+(${layers.join('|')})(/|$)`;

export const layeringMessages = {
  appImportsOuterLayer:
    'app/ is the engine: it may not import training/, host/, electron/ or renderer/ (DESIGN.md, dependency rules).',
  trainingImportsOuterLayer:
    'training/ may import app/ only, never host/, electron/ or renderer/: host/ composes the two (DESIGN.md, dependency rules).',
  hostImportsShell:
    'host/ composes app/ and training/; the shells (electron/, renderer/) import it, never the reverse (DESIGN.md, dependency rules).',
  electronImportsEngine:
    'electron/ binds the composition layer to Electron: it may import host/ and app/api only (DESIGN.md, dependency rules).',
  rendererImportsNode:
    'renderer/ runs in a browser sandbox: it may not import Node built-ins (DESIGN.md, dependency rules).',
  rendererImportsEngine:
    'renderer/ may import only app/api and app/run-log from the engine, each through its index.ts (DESIGN.md, dependency rules).',
  rendererImportsOuterLayer:
    'renderer/ may not import training/, host/ or electron/: talk to them through app/api (DESIGN.md, dependency rules).',
  childStartedByPath:
    'a child process or worker starts from a ChildEntry declared beside its entry (defineChild) through app/children (spawnChild, forkChild, startWorker), never from a path (DESIGN.md, dependency rules).',
};

/** The child-process and worker constructors, which take a script path: only app/children/start.ts holds them. */
const childStarters = ['child_process', 'node:child_process'].map((name) => ({
  name,
  importNames: ['fork', 'spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync'],
  message: layeringMessages.childStartedByPath,
}));
const workerStarters = ['worker_threads', 'node:worker_threads'].map((name) => ({
  name,
  importNames: ['Worker'],
  message: layeringMessages.childStartedByPath,
}));

const enumSyntax = {
  selector: 'TSEnumDeclaration',
  message: 'Use a string union: enums are not erasable syntax.',
};
/** `new URL('./x.ts', import.meta.url)`: a script addressed by path, which no import shows. */
const scriptUrlSyntax = {
  selector: "NewExpression[callee.name='URL'][arguments.0.value=/\\.[cm]?[jt]sx?$/]",
  message: layeringMessages.childStartedByPath,
};

const tests = ['**/*.test.ts', '**/*.test.tsx', '**/*.test-support.ts', '**/fixtures/**'];

/**
 * The import rules of one layer: `patterns` everywhere in it, and outside its tests (which run the
 * CLI and fixtures as processes) no child started from a path.
 */
function layer(folder, patterns, { testsFollowPatterns = true } = {}) {
  const files = [`${folder}/**/*.ts`, `${folder}/**/*.tsx`];
  const rule = (paths) => ['error', { paths, patterns }];
  return [
    {
      files,
      ignores: [...tests, 'app/children/start.ts'],
      rules: {
        'no-restricted-imports': rule([...childStarters, ...workerStarters]),
        'no-restricted-syntax': ['error', enumSyntax, scriptUrlSyntax],
      },
    },
    ...(testsFollowPatterns
      ? [
          {
            files: tests.map((glob) => `${folder}/${glob}`),
            rules: { 'no-restricted-imports': rule([]) },
          },
        ]
      : []),
  ];
}

export default tseslint.config(
  {
    ignores: ['dist/**', 'node_modules/**', 'test-artifacts/**', '**/*.snap'],
  },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  ...tseslint.configs.stylisticTypeChecked,
  // Formatting is Prettier's own check (npm run lint runs it beside ESLint); this only turns off
  // the rules that would fight it.
  prettierConfig,
  {
    languageOptions: {
      parserOptions: {
        projectService: {
          allowDefaultProject: [],
        },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-restricted-syntax': ['error', enumSyntax],
    },
  },
  {
    files: ['**/*.js'],
    ...tseslint.configs.disableTypeChecked,
    // Beside disableTypeChecked's parser options, not instead of them: without them each .js file
    // is parsed through the project service (~5 s of a cold lint for the two files).
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      globals: globals.node,
    },
  },
  ...layer('app', [
    {
      regex: layerImport(['training', 'host', 'electron', 'renderer']),
      message: layeringMessages.appImportsOuterLayer,
    },
  ]),
  ...layer('training', [
    {
      regex: layerImport(['host', 'electron', 'renderer']),
      message: layeringMessages.trainingImportsOuterLayer,
    },
  ]),
  ...layer('host', [
    { regex: layerImport(['electron', 'renderer']), message: layeringMessages.hostImportsShell },
  ]),
  // The shell's tests and fixtures bundle and run the engine's pieces as the build does.
  ...layer(
    'electron',
    [
      {
        regex: '^(\\.\\./)+(app/(?!api(/index\\.ts)?$)|training/|renderer/)',
        message: layeringMessages.electronImportsEngine,
      },
    ],
    { testsFollowPatterns: false },
  ),
  {
    files: ['renderer/**/*.ts', 'renderer/**/*.tsx'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: nodeBuiltins.flatMap((name) => [
            { name, message: layeringMessages.rendererImportsNode },
            { name: `node:${name}`, message: layeringMessages.rendererImportsNode },
          ]),
          patterns: [
            { regex: '^node:', message: layeringMessages.rendererImportsNode },
            {
              regex: '^(\\.\\./)+app/(?!(api|run-log)(/index\\.ts)?$)',
              message: layeringMessages.rendererImportsEngine,
            },
            {
              regex: layerImport(['training', 'host', 'electron']),
              message: layeringMessages.rendererImportsOuterLayer,
            },
          ],
        },
      ],
    },
  },
);
