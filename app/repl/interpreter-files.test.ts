// Where the interpreter process's files are found and how it is started (flags, environment);
// electron/repl-bundle.test.ts runs the bundled interpreter for real.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { interpreterEnv, interpreterExecArgv, interpreterFiles } from './interpreter-files.ts';
import { unpackedPath } from '../children/index.ts';

const replDir = fileURLToPath(new URL('.', import.meta.url)).replace(/\/$/, '');

describe('interpreterEnv', () => {
  it('is empty under Node: nothing of the host environment reaches the interpreter', () => {
    expect(interpreterEnv({ node: '24.1.0' })).toEqual({});
    expect(process.versions.electron).toBeUndefined();
    expect(interpreterEnv()).toEqual({});
  });

  it("under Electron holds only ELECTRON_RUN_AS_NODE, so Electron's binary runs as Node", () => {
    expect(interpreterEnv({ node: '24.1.0', electron: '41.7.1' })).toEqual({
      ELECTRON_RUN_AS_NODE: '1',
    });
  });
});

describe('unpackedPath', () => {
  it('maps a path inside app.asar to app.asar.unpacked (POSIX and Windows separators)', () => {
    expect(unpackedPath('/opt/RLM Studio/resources/app.asar/dist/electron/repl')).toBe(
      '/opt/RLM Studio/resources/app.asar.unpacked/dist/electron/repl',
    );
    expect(unpackedPath('C:\\RLM Studio\\resources\\app.asar\\node_modules\\pyodide')).toBe(
      'C:\\RLM Studio\\resources\\app.asar.unpacked\\node_modules\\pyodide',
    );
  });

  it('leaves other paths alone', () => {
    for (const path of [
      '/work/app/node_modules/pyodide',
      '/opt/app/resources/app.asar.unpacked/dist/electron/repl',
      '/opt/myapp.asar/dist',
    ]) {
      expect(unpackedPath(path)).toBe(path);
    }
  });
});

describe('interpreterFiles', () => {
  const bundleDir = mkdtempSync(join(tmpdir(), 'rlm-interpreter-files-'));
  // What scripts/build-electron.ts writes beside the bundle (only its presence matters here).
  mkdirSync(join(bundleDir, 'repl'));
  writeFileSync(join(bundleDir, 'repl', 'interpreter.mjs'), '');
  afterAll(() => {
    rmSync(bundleDir, { recursive: true, force: true });
  });

  it('runs the TypeScript sources from the source tree', () => {
    const files = interpreterFiles(replDir, '/deps/pyodide');
    expect(files).toEqual({
      entry: join(replDir, 'interpreter', 'main.ts'),
      pythonDir: join(replDir, 'python'),
      pyodideDir: '/deps/pyodide',
      readable: ['/deps/pyodide', replDir, join(replDir, '..', 'children')],
    });
  });

  it("beside a bundle (no sources there) runs the build's repl/ folder", () => {
    const files = interpreterFiles(bundleDir, '/deps/pyodide');
    expect(files).toEqual({
      entry: join(bundleDir, 'repl', 'interpreter.mjs'),
      pythonDir: join(bundleDir, 'repl', 'python'),
      pyodideDir: '/deps/pyodide',
      readable: ['/deps/pyodide', join(bundleDir, 'repl')],
    });
  });

  it('lets the process read only what interpreterFiles names', () => {
    const files = interpreterFiles(bundleDir, '/deps/pyodide');
    const flags = interpreterExecArgv(files);
    expect(flags).toContain('--permission');
    expect(flags.filter((flag) => flag.startsWith('--allow-'))).toEqual([
      '--allow-fs-read=/deps/pyodide',
      `--allow-fs-read=${join(bundleDir, 'repl')}`,
      '--allow-worker',
    ]);
  });
});
