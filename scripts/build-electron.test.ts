import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Metafile } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import {
  BundleBoundaryError,
  copyPythonSources,
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

describe('the interpreter options', () => {
  const options = electronBuildOptions({ root });

  it('bundle the REPL interpreter and its worker as ESM into repl/ beside main.cjs', () => {
    const repl = join(root, 'dist', 'electron', 'repl');
    expect(options.interpreter).toMatchObject({
      bundle: true,
      platform: 'node',
      format: 'esm',
      entryPoints: [join(root, 'app', 'repl', 'interpreter', 'main.ts')],
      outfile: join(repl, 'interpreter.mjs'),
    });
    expect(options.cancelWatch).toMatchObject({
      format: 'esm',
      entryPoints: [join(root, 'app', 'repl', 'interpreter', 'cancel-watch.ts')],
      outfile: join(repl, 'cancel-watch.mjs'),
    });
    // Native ESM: import.meta is the bundle's own, not main.cjs's shim.
    expect(options.interpreter.define).toBeUndefined();
    expect(options.interpreter.banner).toBeUndefined();
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

  it('lets the interpreter bundles require Node built-ins only, not even electron', () => {
    const metafile = metafileImporting('electron', 'node:fs', 'worker_threads', 'pyodide');
    expect(forbiddenRuntimeImports('interpreter', metafile)).toEqual(['electron', 'pyodide']);
    expect(forbiddenRuntimeImports('cancelWatch', metafile)).toEqual(['electron', 'pyodide']);
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

describe('copyPythonSources', () => {
  const outDir = mkdtempSync(join(tmpdir(), 'rlm-python-copy-'));
  afterAll(() => {
    rmSync(outDir, { recursive: true, force: true });
  });

  it('copies every app/repl/python/*.py to repl/python, dropping what an earlier build left', () => {
    const python = join(outDir, 'repl', 'python');
    mkdirSync(python, { recursive: true });
    writeFileSync(join(python, 'removed_module.py'), 'stale = True\n');
    const copied = copyPythonSources({ root, outDir });
    const sources = readdirSync(join(root, 'app', 'repl', 'python')).filter((name) =>
      name.endsWith('.py'),
    );
    expect(copied).toEqual(sources.sort());
    expect(copied).toContain('runner.py');
    expect(readdirSync(python).sort()).toEqual(copied);
    expect(existsSync(join(python, 'removed_module.py'))).toBe(false);
  });
});

describe('the engine children options', () => {
  const options = electronBuildOptions({ root });

  it('bundle the embedder, the trainer and the local-model process as CommonJS beside main.cjs, native packages external', () => {
    const out = join(root, 'dist', 'electron');
    expect(options.embedChild).toMatchObject({
      format: 'cjs',
      platform: 'node',
      entryPoints: [join(root, 'app', 'papers', 'embed', 'embed-child.ts')],
      outfile: join(out, 'embed-child.cjs'),
      external: ['@huggingface/transformers'],
      define: { 'import.meta.url': '__importMetaUrl' },
    });
    expect(options.trainJob).toMatchObject({
      format: 'cjs',
      entryPoints: [join(root, 'host', 'children', 'train-job-main.ts')],
      outfile: join(out, 'train-job.cjs'),
      external: ['@huggingface/transformers', 'webgpu'],
    });
    expect(options.localModel).toMatchObject({
      format: 'cjs',
      entryPoints: [join(root, 'training', 'engine', 'decoding', 'local-model-child.ts')],
      outfile: join(out, 'local-model.cjs'),
      external: ['@huggingface/transformers', 'webgpu'],
    });
    // import('@huggingface/transformers') becomes require(): the CommonJS loader reads app.asar.
    expect(options.embedChild.supported).toEqual({ 'dynamic-import': false });
    expect(options.trainJob.supported).toEqual({ 'dynamic-import': false });
    expect(options.localModel.supported).toEqual({ 'dynamic-import': false });
  });

  it('let a child require Node built-ins and its declared packages only', () => {
    const metafile = metafileImporting(
      'node:fs',
      '@huggingface/transformers',
      'webgpu',
      'electron',
    );
    expect(forbiddenRuntimeImports('embedChild', metafile)).toEqual(['electron', 'webgpu']);
    expect(forbiddenRuntimeImports('trainJob', metafile)).toEqual(['electron']);
    expect(new BundleBoundaryError('embedChild', ['webgpu']).message).toMatch(
      /embedChild bundle would require 'webgpu'.*'@huggingface\/transformers' only/,
    );
  });
});
