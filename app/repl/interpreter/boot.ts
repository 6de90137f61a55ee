// Starts Pyodide inside the interpreter process: a heap ceiling, the interrupt hook, the Python
// runner and guards, then a lock-down of the JS host. Invariant: after boot() returns, nothing
// left on the process (vm, getBuiltinModule, fetch) compiles code or opens a new kind of I/O.
import { constants, readFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import vm from 'node:vm';
import type { InterpreterSettings } from '../protocol.ts';

/** The Python objects the process drives; calls cross into Pyodide. */
export interface PyAgent {
  destroy(): void;
}
export interface PyRunner {
  load_context(contextId: number, contextJson: string): void;
  forget_context(contextId: number): void;
  create_agent(agentId: string, contextId: number): PyAgent;
  run: { callPromising(agent: PyAgent, code: string): Promise<unknown> };
}
export interface Interpreter {
  runner: PyRunner;
  pythonVersion: string;
}

interface Pyodide {
  runPython(code: string, options?: { globals?: unknown }): unknown;
  setInterruptBuffer(buffer: unknown): void;
  toPy(value: unknown): unknown;
}
type LoadPyodide = (options: Record<string, unknown>) => Promise<Pyodide>;
type BootFunction = (host: unknown, ...sources: string[]) => PyRunner;

const pythonModules = [
  'guard_ast',
  'guard_modules',
  'guard_runtime',
  'guard_builtins',
  'rlm_builtins',
  'runner',
];

interface WasmNamespace {
  instantiate(source: unknown, imports?: Record<string, Record<string, unknown>>): Promise<unknown>;
}

/** The ceiling: Emscripten asks the host to grow the heap; past the cap the answer is no (malloc -> NULL). */
function capHeapGrowth(maxBytes: number): void {
  const wasm = (globalThis as unknown as { WebAssembly: WasmNamespace }).WebAssembly;
  const instantiate = wasm.instantiate.bind(wasm);
  const patched: WasmNamespace['instantiate'] = (source, imports) => {
    const env = imports?.env;
    const grow = env?.emscripten_resize_heap;
    if (env && typeof grow === 'function') {
      env.emscripten_resize_heap = (requested: number) =>
        requested >>> 0 > maxBytes ? 0 : (grow as (size: number) => number)(requested);
    }
    return instantiate(source, imports);
  };
  Object.defineProperty(wasm, 'instantiate', { value: patched, configurable: true });
}

/** Emscripten's NODEFS reads fs constants through process.binding, which the permission model forbids. */
function shimProcessBinding(): void {
  const binding = (name: string): unknown => {
    if (name === 'constants') return { fs: constants };
    throw new Error(`process.binding('${name}') is not available in the interpreter process`);
  };
  Object.defineProperty(process, 'binding', { value: binding, configurable: true });
}

function lockDown(): void {
  const refuse = (what: string) => () => {
    throw new Error(`${what} is not available in the interpreter process`);
  };
  const mutableVm = vm as unknown as Record<string, unknown>;
  for (const name of [
    'runInThisContext',
    'runInNewContext',
    'runInContext',
    'compileFunction',
    'Script',
  ]) {
    mutableVm[name] = refuse(`vm.${name}`);
  }
  syncBuiltinESMExports();
  const mutableProcess = process as unknown as Record<string, unknown>;
  for (const name of ['getBuiltinModule', 'dlopen', '_linkedBinding', 'binding']) {
    Object.defineProperty(mutableProcess, name, {
      value: refuse(`process.${name}`),
      configurable: false,
    });
  }
  const mutableGlobal = globalThis as unknown as Record<string, unknown>;
  for (const name of ['fetch', 'WebSocket', 'EventSource', 'XMLHttpRequest']) {
    Reflect.deleteProperty(mutableGlobal, name);
  }
}

const bootstrap = `
def boot(host, ${pythonModules.join(', ')}):
    import types
    from pyodide.ffi import run_sync
    loaded = {}
    for name, source in zip(${JSON.stringify(pythonModules)}, (${pythonModules.join(', ')})):
        module = types.ModuleType('rlm_' + name)
        exec(compile(source, '<rlm-' + name.replace('_', '-') + '>', 'exec'), module.__dict__)
        loaded[name] = module
    runner = loaded['runner']
    runner.RUNNER_FILE = '<rlm-runner>'
    runner.setup(host, run_sync, loaded['guard_ast'], loaded['guard_modules'], loaded['guard_runtime'],
                 loaded['guard_builtins'], loaded['rlm_builtins'])
    return runner
boot
`;

export async function boot(
  settings: InterpreterSettings,
  host: (op: string, a?: unknown, b?: unknown, c?: unknown) => unknown,
  shouldInterrupt: () => boolean,
): Promise<Interpreter> {
  shimProcessBinding();
  capHeapGrowth(settings.maxMemoryBytes);
  const moduleUrl = pathToFileURL(join(settings.pyodideDir, 'pyodide.mjs')).href;
  const { loadPyodide } = (await import(moduleUrl)) as { loadPyodide: LoadPyodide };
  const pyodide = await loadPyodide({
    indexURL: settings.pyodideDir + '/',
    jsglobals: Object.create(null) as object,
    stdout: () => undefined,
    stderr: () => undefined,
  });
  // Slot 0 is read by the eval loop; a getter lets the deadline be checked on the same thread.
  const signalSlot = {
    get 0() {
      return shouldInterrupt() ? 2 : 0;
    },
    set 0(_value: number) {
      // Pyodide clears the slot after reading it; the getter recomputes it each time.
    },
  };
  pyodide.setInterruptBuffer(signalSlot);
  const sources = pythonModules.map((name) =>
    readFileSync(join(settings.pythonDir, `${name}.py`), 'utf8'),
  );
  const bootFunction = pyodide.runPython(bootstrap, { globals: pyodide.toPy({}) }) as BootFunction;
  const runner = bootFunction(host, ...sources);
  const pythonVersion = String(pyodide.runPython('import sys; sys.version.split()[0]'));
  lockDown();
  return { runner, pythonVersion };
}
