import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Metafile } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import {
  BundleBoundaryError,
  electronBuildOptions,
  forbiddenRuntimeImports,
} from './build-electron.ts';

const root = fileURLToPath(new URL('..', import.meta.url));

function metafileImporting(...paths: string[]): Metafile {
  return {
    inputs: {},
    outputs: {
      'out.cjs': {
        bytes: 1,
        inputs: {},
        exports: [],
        imports: paths.map((path) => ({ path, kind: 'require-call', external: true })),
      },
    },
  };
}

describe('electronBuildOptions', () => {
  const options = electronBuildOptions({ root });

  it('bundles main for Node as CommonJS, with electron external and import.meta shimmed', () => {
    expect(options.main).toMatchObject({
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'node22',
      external: ['electron'],
      outfile: join(root, 'dist', 'electron', 'main.cjs'),
      define: { 'import.meta.url': '__importMetaUrl' },
    });
    expect(options.main.banner?.js).toContain('pathToFileURL(__filename)');
  });

  it('bundles the preload as CommonJS for the sandbox, everything inlined but electron', () => {
    expect(options.preload).toMatchObject({
      bundle: true,
      platform: 'browser',
      format: 'cjs',
      external: ['electron'],
      outfile: join(root, 'dist', 'electron', 'preload.cjs'),
    });
  });
});

describe('forbiddenRuntimeImports', () => {
  it('lets main require electron and Node built-ins only', () => {
    const metafile = metafileImporting('electron', 'node:sqlite', 'fs', 'zod');
    expect(forbiddenRuntimeImports('main', metafile)).toEqual(['zod']);
  });

  it('lets the preload require electron only', () => {
    const metafile = metafileImporting('electron', 'node:fs', 'events');
    expect(forbiddenRuntimeImports('preload', metafile)).toEqual(['events', 'node:fs']);
  });

  it('names the module and the fix in its error', () => {
    expect(new BundleBoundaryError('preload', ['node:fs']).message).toMatch(
      /preload bundle would require 'node:fs'.*only 'electron'/,
    );
  });
});

describe('the preload options', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rlm-preload-'));
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('fail the build of a preload that reaches for Node', async () => {
    const entry = join(dir, 'bad-preload.ts');
    writeFileSync(entry, "import { readFileSync } from 'node:fs';\nconsole.log(readFileSync);\n");
    const { preload } = electronBuildOptions({ root, outDir: dir });
    await expect(
      build({ ...preload, entryPoints: [entry], outfile: join(dir, 'bad.cjs') }),
    ).rejects.toThrow(/node:fs/);
  });
});
