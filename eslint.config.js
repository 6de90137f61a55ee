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
    'app/ is the engine: it may not import training/, electron/ or renderer/ (DESIGN.md, dependency rules).',
  rendererImportsNode:
    'renderer/ runs in a browser sandbox: it may not import Node built-ins (DESIGN.md, dependency rules).',
  rendererImportsEngine:
    'renderer/ may import only app/api from the engine, through app/api/index.ts (DESIGN.md, dependency rules).',
  rendererImportsOuterLayer:
    'renderer/ may not import training/ or electron/: talk to them through app/api (DESIGN.md, dependency rules).',
};

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
      'no-restricted-syntax': [
        'error',
        {
          selector: 'TSEnumDeclaration',
          message: 'Use a string union: enums are not erasable syntax.',
        },
      ],
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
  {
    files: ['app/**/*.ts', 'app/**/*.tsx'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: layerImport(['training', 'electron', 'renderer']),
              message: layeringMessages.appImportsOuterLayer,
            },
          ],
        },
      ],
    },
  },
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
              regex: '^(\\.\\./)+app/(?!api(/index\\.ts)?$)',
              message: layeringMessages.rendererImportsEngine,
            },
            {
              regex: layerImport(['training', 'electron']),
              message: layeringMessages.rendererImportsOuterLayer,
            },
          ],
        },
      ],
    },
  },
);
