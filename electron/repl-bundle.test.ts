// The Python REPL as the desktop app runs it, with plain Node (Electron's binary cannot be installed
// here). scripts/build-electron.ts builds the bundles into a temporary folder; a harness bundled
// with main.cjs's options into main.cjs's folder starts ReplSandbox, which must find the BUNDLED
// interpreter (repl/interpreter.mjs, its worker, the Python sources) and fork it under the app's
// flags. Two layouts: a checkout's dist/electron (`npm start`), and a packaged app, where the
// bundle sits in resources/app.asar and what the child reads is unpacked to app.asar.unpacked.
import { execFileSync } from 'node:child_process';
import {
  copyFileSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RecordingLoop } from '../app/repl/recording-loop.ts';
import { buildWithHarness } from './fixtures/build-with-harness.ts';
import type * as HarnessModule from './fixtures/repl-harness.ts';

type Harness = typeof HarnessModule;
type Sandbox = Awaited<ReturnType<Harness['ReplSandbox']['start']>>;

const projectRoot = fileURLToPath(new URL('..', import.meta.url));
const pyodideSource = dirname(createRequire(import.meta.url).resolve('pyodide/package.json'));
const dir = mkdtempSync(join(tmpdir(), 'rlm-repl-bundle-'));

// A checkout after `npm run build:electron`: dist/electron beside node_modules.
const checkout = join(dir, 'checkout');
const checkoutOut = join(checkout, 'dist', 'electron');
// A packaged app: app.asar (a folder here; plain Node reads it as one) and app.asar.unpacked.
const resources = join(dir, 'app', 'resources');
const packedOut = join(resources, 'app.asar', 'dist', 'electron');
const unpackedOut = join(resources, 'app.asar.unpacked', 'dist', 'electron');
const unpackedPyodide = join(resources, 'app.asar.unpacked', 'node_modules', 'pyodide');

beforeAll(async () => {
  await buildWithHarness(projectRoot, checkoutOut, 'repl-harness');
  mkdirSync(join(checkout, 'node_modules'));
  symlinkSync(pyodideSource, join(checkout, 'node_modules', 'pyodide'), 'dir');

  // electron-builder's asarUnpack: repl/ and node_modules/pyodide live only in app.asar.unpacked
  // (the archive keeps just their entries; package.json here so the bundle resolves Pyodide).
  mkdirSync(packedOut, { recursive: true });
  copyFileSync(join(checkoutOut, 'repl-harness.cjs'), join(packedOut, 'repl-harness.cjs'));
  cpSync(join(checkoutOut, 'repl'), join(unpackedOut, 'repl'), { recursive: true });
  const packedPyodide = join(resources, 'app.asar', 'node_modules', 'pyodide');
  mkdirSync(packedPyodide, { recursive: true });
  copyFileSync(join(pyodideSource, 'package.json'), join(packedPyodide, 'package.json'));
  mkdirSync(unpackedPyodide, { recursive: true });
  for (const name of readdirSync(pyodideSource)) {
    if (!name.endsWith('.map'))
      copyFileSync(join(pyodideSource, name), join(unpackedPyodide, name));
  }
}, 60_000);

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

function loadHarness(outDir: string): Harness {
  return createRequire(join(outDir, 'main.cjs'))('./repl-harness.cjs') as Harness;
}

/** Model code through the bundled interpreter: output, state, a host call, a refused attack. */
function describeRepl(layout: string, outDir: () => string) {
  describe(`the bundled REPL (${layout})`, () => {
    const loop = new RecordingLoop();
    let repl: Sandbox;

    beforeAll(async () => {
      repl = await loadHarness(outDir()).ReplSandbox.start({
        callbacks: loop,
        limits: { timeoutMs: 5_000 },
      });
      await repl.createAgent('root', { p1: 'The first paper.' });
    }, 60_000);

    afterAll(async () => {
      await repl.dispose();
    });

    it('prints, keeps variables across runs and reads its context', async () => {
      const first = await repl.run('root', "x = 6 * 7\nprint('hello from', sorted(context))");
      expect(first.error).toBeNull();
      expect(first.stdout).toBe("hello from ['p1']\n");
      const second = await repl.run('root', 'print(x + 1)');
      expect(second.stdout).toBe('43\n');
    });

    it('suspends in rlm_query while the host answers', async () => {
      const result = await repl.run(
        'root',
        "answer = rlm_query('sum it up', 'a chunk')\nprint(answer)",
      );
      expect(result.error).toBeNull();
      expect(result.stdout).toBe('answer from root to sum it up\n');
      expect(loop.calls.at(-1)).toEqual({
        op: 'rlmQuery',
        agentId: 'root',
        args: ['sum it up', 'a chunk'],
      });
    });

    it('cancels a busy run through the bundled cancel-pipe worker', async () => {
      const controller = new AbortController();
      setTimeout(() => {
        controller.abort();
      }, 100);
      const result = await repl.run('root', 'while True:\n    pass', controller.signal);
      expect(result.error?.type).toBe('ExecutionCancelled');
      // Well inside the 5 s time limit: the cancel, not the deadline, stopped it.
      expect(result.durationMs).toBeLessThan(3_000);
    });

    it('still refuses to read a host file', async () => {
      const attack = await repl.run('root', "print(open('/etc/passwd').read())");
      expect(attack.error).not.toBeNull();
      expect(attack.stdout).not.toContain('root:');
      const after = await repl.run('root', 'print(x)');
      expect(after.stdout).toBe('42\n');
    });
  });
}

describe('the interpreter files beside the bundle', () => {
  /** The interpreter's files when its repl/ folder and Pyodide are where these say. */
  const layout = (repl: string, pyodide: string) => ({
    entry: join(repl, 'interpreter.mjs'),
    pythonDir: join(repl, 'python'),
    pyodideDir: pyodide,
    readable: [pyodide, repl],
  });

  it('in a checkout: dist/electron/repl and node_modules/pyodide', () => {
    expect(loadHarness(checkoutOut).interpreterFiles()).toEqual(
      layout(join(checkoutOut, 'repl'), pyodideSource),
    );
  });

  it('in a packaged app: only app.asar.unpacked paths, never inside app.asar', () => {
    expect(loadHarness(packedOut).interpreterFiles()).toEqual(
      layout(join(unpackedOut, 'repl'), unpackedPyodide),
    );
  });

  it('lets the packaged child read its files and Pyodide, but not the archive or the host', () => {
    const harness = loadHarness(packedOut);
    const files = harness.interpreterFiles();
    const probe = `
      import { readFileSync } from 'node:fs';
      const attempt = (path) => { try { readFileSync(path); return 'read'; } catch (e) { return e.code; } };
      console.log(JSON.stringify(${JSON.stringify({
        python: join(files.pythonDir, 'runner.py'),
        pyodide: join(files.pyodideDir, 'pyodide.mjs'),
        archive: join(packedOut, 'repl-harness.cjs'),
        host: '/etc/passwd',
      })}, (key, value) => key === '' ? value : attempt(value)));`;
    const output = execFileSync(
      process.execPath,
      [...harness.interpreterExecArgv(files), '--input-type=module', '--eval', probe],
      { env: {}, encoding: 'utf8' },
    );
    expect(JSON.parse(output)).toEqual({
      python: 'read',
      pyodide: 'read',
      archive: 'ERR_ACCESS_DENIED',
      host: 'ERR_ACCESS_DENIED',
    });
  });
});

describeRepl('a checkout', () => checkoutOut);
describeRepl('a packaged app', () => packedOut);
