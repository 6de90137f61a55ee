// Where the interpreter process's files are (the source tree, or beside the desktop bundle and
// unpacked from app.asar), and how it is started: its Node flags and its environment.
// Invariant: the process may read only its own files and Pyodide.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

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
  /** The worker that reads the cancel pipe. */
  cancelWatch: string;
  /** runner.py, the guards and the built-ins. */
  pythonDir: string;
  pyodideDir: string;
  /** The only paths the process may read (--allow-fs-read): its own files and Pyodide. */
  readable: string[];
}

/**
 * The real path of a file inside a packaged app.asar: electron-builder unpacks what the interpreter
 * process reads (electron-builder.yml, asarUnpack) to app.asar.unpacked, because a child run as
 * Node under --permission must read plain files. Paths outside an app.asar come back unchanged.
 */
export function unpackedPath(path: string): string {
  return path.replace(/([\\/])app\.asar(?=[\\/]|$)/, '$1app.asar.unpacked');
}

/**
 * Where the interpreter's files are: the source tree when this module runs from app/repl, else the
 * repl/ folder that scripts/build-electron.ts writes beside the desktop bundle (this module is then
 * inside dist/electron/main.cjs), unpacked from app.asar in a packaged app.
 */
export function interpreterFiles(
  dir: string = replDir,
  pyodide: string = pyodideDir(),
): InterpreterFiles {
  const source = join(dir, 'interpreter', 'main.ts');
  if (existsSync(source)) {
    return {
      entry: source,
      cancelWatch: join(dir, 'interpreter', 'cancel-watch.ts'),
      pythonDir: join(dir, 'python'),
      pyodideDir: pyodide,
      // main.ts imports its siblings (../protocol.ts, ../message-batch.ts) at run time.
      readable: [pyodide, dir],
    };
  }
  const bundle = unpackedPath(join(dir, 'repl'));
  const pyodideReal = unpackedPath(pyodide);
  return {
    entry: join(bundle, 'interpreter.mjs'),
    cancelWatch: join(bundle, 'cancel-watch.mjs'),
    pythonDir: join(bundle, 'python'),
    pyodideDir: pyodideReal,
    readable: [pyodideReal, bundle],
  };
}

/**
 * The interpreter process's whole environment: nothing from the host's, except that Electron's
 * binary (the execPath inside the desktop app) must be told to run as Node, not as a second app.
 */
export function interpreterEnv(
  versions: Readonly<Partial<Record<string, string>>> = process.versions,
): Record<string, string> {
  return versions.electron === undefined ? {} : { ELECTRON_RUN_AS_NODE: '1' };
}

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
