// Where the interpreter process's files are (the source tree, or beside the desktop bundle and
// unpacked from app.asar), and how it is started: its Node flags and its environment.
// Invariant: the process may read only its own files and Pyodide.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  ChildEntry,
  defineChild,
  runAsNodeEnv,
  unpackedPath,
  type ChildFiles,
} from '../children/index.ts';

// app/repl in the source tree; dist/electron when bundled into the desktop shell's main.cjs.
const replDir = dirname(fileURLToPath(import.meta.url));

function pyodideDir(): string {
  const require = createRequire(import.meta.url);
  return dirname(require.resolve('pyodide/package.json'));
}

/** The interpreter process's files, and all it may read. */
export interface InterpreterFiles {
  /** The script forked: interpreter/main.ts here, or repl/interpreter.mjs beside the desktop bundle. */
  entry: string;
  /** runner.py, the guards and the built-ins. */
  pythonDir: string;
  pyodideDir: string;
  /** The only paths the process may read (--allow-fs-read): its own files and Pyodide. */
  readable: string[];
}

const interpreterScripts: ChildFiles = {
  source: './interpreter/main.ts',
  bundled: 'repl/interpreter.mjs',
  unpacked: true,
};

/** The interpreter process: interpreter/main.ts here, or repl/interpreter.mjs beside the bundle. */
export const interpreterChild = defineChild(import.meta.url, interpreterScripts);

/**
 * Where the interpreter's files are: the source tree when this module runs from app/repl, else the
 * repl/ folder that scripts/build-electron.ts writes beside the desktop bundle (this module is then
 * inside dist/electron/main.cjs), unpacked from app.asar in a packaged app.
 */
export function interpreterFiles(
  dir: string = replDir,
  pyodide: string = pyodideDir(),
): InterpreterFiles {
  const entry = new ChildEntry(dir, interpreterScripts).resolve();
  if (!entry.bundled) {
    return {
      entry: entry.script,
      pythonDir: join(dir, 'python'),
      pyodideDir: pyodide,
      // main.ts imports its siblings (../protocol.ts, ../message-batch.ts) at run time, and
      // app/children, which starts its cancel-pipe worker (bundled into interpreter.mjs otherwise).
      readable: [pyodide, dir, join(dir, '..', 'children')],
    };
  }
  const bundle = dirname(entry.script);
  const pyodideReal = unpackedPath(pyodide);
  return {
    entry: entry.script,
    pythonDir: join(bundle, 'python'),
    pyodideDir: pyodideReal,
    readable: [pyodideReal, bundle],
  };
}

/**
 * The interpreter process's whole environment: nothing from the host's, except that Electron's
 * binary (the execPath inside the desktop app) must be told to run as Node, not as a second app.
 */
export const interpreterEnv = runAsNodeEnv;

/**
 * Node flags of the interpreter process: the permission model with reads limited to Pyodide and
 * its own files, no writes, no child processes, no addons; no eval or new Function from strings.
 */
export function interpreterExecArgv(files: InterpreterFiles = interpreterFiles()): string[] {
  return [
    '--permission',
    ...files.readable.map((path) => `--allow-fs-read=${path}`),
    // One worker thread reads the cancel pipe while Python keeps the main thread busy.
    '--allow-worker',
    '--disallow-code-generation-from-strings',
    // Deeply nested C recursion (repr of a deep list) overflows V8's stack before CPython's own
    // check; larger stacks (committed lazily) push that point from ~2,500 to ~10,000 levels.
    '--stack-size=3800',
    '--wasm-stack-switching-stack-size=16000',
    '--disable-warning=ExperimentalWarning',
    '--disable-warning=SecurityWarning',
  ];
}
