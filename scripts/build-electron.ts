// Bundles the desktop shell with esbuild: electron/main.ts -> dist/electron/main.cjs (Node, CJS)
// and electron/preload.ts -> dist/electron/preload.cjs (sandboxed: it may require only 'electron'),
// plus the Python REPL's interpreter process in dist/electron/repl/ (interpreter.mjs, its
// cancel-watch.mjs worker and the python/ sources), which app/repl/interpreter-process.ts forks,
// and the engine's other children beside main.cjs: embed-child.cjs, train-job.cjs and local-model.cjs
// (each declared with defineChild beside its entry, app/children; their parents are in host/children).
import { copyFileSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type BuildOptions, type Metafile } from 'esbuild';

const projectRoot = fileURLToPath(new URL('..', import.meta.url));

export type BundleName =
  | 'main'
  | 'preload'
  | 'extractWorker'
  | 'interpreter'
  | 'cancelWatch'
  | 'embedChild'
  | 'trainJob'
  | 'localModel';

/** Bundles run by the REPL's interpreter process: plain Node (Electron run as Node), never Electron. */
const interpreterBundles: ReadonlySet<BundleName> = new Set(['interpreter', 'cancelWatch']);

/**
 * The packages the engine's child processes (Electron run as Node, never Electron itself) load from
 * node_modules instead of the bundle: native code (onnxruntime-node and sharp under transformers.js,
 * Dawn under webgpu), which electron-builder unpacks from app.asar by itself. Each must be a
 * production dependency (electron/packaging.test.ts).
 */
export const childExternals = {
  embedChild: ['@huggingface/transformers'],
  trainJob: ['@huggingface/transformers', 'webgpu'],
  localModel: ['@huggingface/transformers', 'webgpu'],
} as const satisfies Partial<Record<BundleName, readonly string[]>>;

type ChildBundle = keyof typeof childExternals;
const isChildBundle = (bundle: BundleName): bundle is ChildBundle => bundle in childExternals;

/** A bundle reaches a module its runtime cannot load (e.g. a Node built-in from the sandboxed preload). */
export class BundleBoundaryError extends Error {
  override readonly name = 'BundleBoundaryError';
  constructor(bundle: BundleName, modules: readonly string[]) {
    const names = modules.map((m) => `'${m}'`).join(', ');
    const rule =
      bundle === 'preload'
        ? "a sandboxed preload can require only 'electron': import pure code (app/api) instead"
        : interpreterBundles.has(bundle)
          ? 'the interpreter process (Electron run as Node, reading only its own folder and Pyodide) can load Node built-ins only'
          : isChildBundle(bundle)
            ? `this child process (Electron run as Node) can load Node built-ins and ${childExternals[bundle].map((m) => `'${m}'`).join(', ')} only: bundle the module, or declare it in childExternals if it holds native code`
            : "the packaged app resolves only 'electron' and Node built-ins: stop importing the module that needs them, or bundle a pure alternative";
    super(`The ${bundle} bundle would require ${names} at run time; ${rule}`);
  }
}

/** esbuild reported warnings: treated as errors so a silently broken bundle never ships. */
export class BundleWarningError extends Error {
  override readonly name = 'BundleWarningError';
  constructor(bundle: BundleName, warnings: readonly string[]) {
    super(`The ${bundle} bundle built with warnings; fix them: ${warnings.join(' | ')}`);
  }
}

// app/ is ESM and reads files relative to import.meta.url; in CommonJS that URL is the bundle's own.
const importMetaShim =
  "const __importMetaUrl = require('node:url').pathToFileURL(__filename).href;";

export type BundleOptions = BuildOptions & { metafile: true; outfile: string };

export interface BuildPaths {
  root: string;
  /** Where main.cjs and preload.cjs go; dist/electron under root unless a test moves them. */
  outDir?: string;
}

/** The interpreter process's folder beside the bundles (app/repl/interpreter-process.ts forks from it). */
export function replOutDir(outDir: string): string {
  return join(outDir, 'repl');
}

/** Every bundle of the desktop build. Longer than ~60 lines as a table: one entry per bundle. */
export function electronBuildOptions(
  paths: BuildPaths = { root: projectRoot },
): Record<BundleName, BundleOptions> {
  const { root } = paths;
  const outDir = paths.outDir ?? join(root, 'dist', 'electron');
  const common = {
    bundle: true,
    format: 'cjs',
    external: ['electron'],
    sourcemap: true,
    metafile: true,
    logLevel: 'silent',
    absWorkingDir: root,
  } as const satisfies BuildOptions;
  const nodeCjs = {
    platform: 'node',
    target: 'node22',
    banner: { js: importMetaShim },
    define: {
      'import.meta.url': '__importMetaUrl',
      'import.meta.dirname': '__dirname',
      'import.meta.filename': '__filename',
    },
  } as const satisfies BuildOptions;
  const nodeEsm = {
    format: 'esm',
    platform: 'node',
    target: 'node22',
  } as const satisfies BuildOptions;
  return {
    main: {
      ...common,
      ...nodeCjs,
      entryPoints: [join(root, 'electron', 'main.ts')],
      outfile: join(outDir, 'main.cjs'),
    },
    // PDF extraction's worker thread (app/papers/extract/pool.ts looks for it beside main.cjs).
    extractWorker: {
      ...common,
      ...nodeCjs,
      entryPoints: [join(root, 'app', 'papers', 'extract', 'extract-worker.ts')],
      outfile: join(outDir, 'extract-worker.cjs'),
    },
    // The REPL's interpreter process and its cancel-pipe worker, in their own folder: that folder
    // and Pyodide are all the process may read (--allow-fs-read), and what the package unpacks
    // from app.asar (electron-builder.yml). ESM, as in the source tree: main.ts awaits at top level
    // and boot.ts imports pyodide.mjs by file URL at run time (not bundled: Pyodide reads its
    // .wasm and stdlib beside it).
    interpreter: {
      ...common,
      entryPoints: [join(root, 'app', 'repl', 'interpreter', 'main.ts')],
      ...nodeEsm,
      outfile: join(replOutDir(outDir), 'interpreter.mjs'),
    },
    cancelWatch: {
      ...common,
      entryPoints: [join(root, 'app', 'repl', 'interpreter', 'cancel-watch.ts')],
      ...nodeEsm,
      outfile: join(replOutDir(outDir), 'cancel-watch.mjs'),
    },
    // The engine's other children, beside main.cjs and inside app.asar like it (Electron run as Node
    // reads the archive; only the native packages they load are unpacked, by electron-builder).
    // CommonJS, as main.cjs, and their externals loaded with require() too (import() lowered):
    // require() from app.asar is what Electron has always supported; its ESM resolver in the
    // archive came later and has regressed before.
    embedChild: {
      ...common,
      ...nodeCjs,
      entryPoints: [join(root, 'app', 'papers', 'embed', 'embed-child.ts')],
      outfile: join(outDir, 'embed-child.cjs'),
      external: [...childExternals.embedChild],
      supported: { 'dynamic-import': false },
    },
    // `train-job DIR` alone (host/children/train-job-main.ts), not the whole CLI.
    trainJob: {
      ...common,
      ...nodeCjs,
      entryPoints: [join(root, 'host', 'children', 'train-job-main.ts')],
      outfile: join(outDir, 'train-job.cjs'),
      external: [...childExternals.trainJob],
      supported: { 'dynamic-import': false },
    },
    // `local:` models decode here rather than in the main process.
    localModel: {
      ...common,
      ...nodeCjs,
      entryPoints: [join(root, 'training', 'engine', 'decoding', 'local-model-child.ts')],
      outfile: join(outDir, 'local-model.cjs'),
      external: [...childExternals.localModel],
      supported: { 'dynamic-import': false },
    },
    preload: {
      ...common,
      entryPoints: [join(root, 'electron', 'preload.ts')],
      outfile: join(outDir, 'preload.cjs'),
      // 'browser' makes any Node built-in a build error instead of a crash in the sandbox.
      platform: 'browser',
      target: 'es2024',
    },
  };
}

const nodeBuiltins = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]));

/** The modules a bundle requires at run time that its runtime cannot provide. */
export function forbiddenRuntimeImports(bundle: BundleName, metafile: Metafile): string[] {
  const builtin = (path: string) => nodeBuiltins.has(path) || path.startsWith('node:');
  const allowed = (path: string) =>
    interpreterBundles.has(bundle)
      ? builtin(path)
      : isChildBundle(bundle)
        ? builtin(path) || (childExternals[bundle] as readonly string[]).includes(path)
        : path === 'electron' || (bundle !== 'preload' && builtin(path));
  const external = Object.values(metafile.outputs).flatMap((output) =>
    output.imports.filter((entry) => entry.external === true).map((entry) => entry.path),
  );
  return [...new Set(external.filter((path) => !allowed(path)))].sort();
}

export interface BuiltBundle {
  bundle: BundleName;
  outfile: string;
  bytes: number;
}

/**
 * Copies the REPL's Python sources (app/repl/python/*.py) to repl/python beside the interpreter
 * bundle, replacing what an earlier build left there; returns the file names.
 */
export function copyPythonSources(paths: BuildPaths = { root: projectRoot }): string[] {
  const from = join(paths.root, 'app', 'repl', 'python');
  const to = join(replOutDir(paths.outDir ?? join(paths.root, 'dist', 'electron')), 'python');
  rmSync(to, { recursive: true, force: true });
  mkdirSync(to, { recursive: true });
  const names = readdirSync(from)
    .filter((name) => name.endsWith('.py'))
    .sort();
  for (const name of names) copyFileSync(join(from, name), join(to, name));
  return names;
}

/**
 * Copies PDFium's wasm beside the extraction worker's bundle, where its reader looks first (the
 * bundle holds PDFium's JavaScript, not its 4 MB binary); returns the copy's path.
 */
export function copyPdfiumWasm(paths: BuildPaths = { root: projectRoot }): string {
  const to = join(paths.outDir ?? join(paths.root, 'dist', 'electron'), 'pdfium.wasm');
  mkdirSync(dirname(to), { recursive: true });
  copyFileSync(join(paths.root, 'node_modules', '@hyzyla', 'pdfium', 'dist', 'pdfium.wasm'), to);
  return to;
}

export async function buildElectron(
  paths: BuildPaths = { root: projectRoot },
): Promise<BuiltBundle[]> {
  const options = electronBuildOptions(paths);
  const names = Object.keys(options) as BundleName[];
  copyPythonSources(paths);
  copyPdfiumWasm(paths);
  return Promise.all(
    names.map(async (bundle): Promise<BuiltBundle> => {
      const result = await build(options[bundle]);
      if (result.warnings.length > 0) {
        throw new BundleWarningError(
          bundle,
          result.warnings.map((w) => w.text),
        );
      }
      const forbidden = forbiddenRuntimeImports(bundle, result.metafile);
      if (forbidden.length > 0) throw new BundleBoundaryError(bundle, forbidden);
      const { outfile } = options[bundle];
      return { bundle, outfile, bytes: statSync(outfile).size };
    }),
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    for (const { outfile, bytes } of await buildElectron()) {
      console.log(`built ${relative(projectRoot, outfile)} (${(bytes / 1024).toFixed(0)} KiB)`);
    }
    const python = join(replOutDir(join(projectRoot, 'dist', 'electron')), 'python');
    console.log(`copied ${relative(projectRoot, python)}/ (${readdirSync(python).join(', ')})`);
  } catch (error) {
    console.error(error instanceof Error ? `${error.name}: ${error.message}` : error);
    process.exitCode = 1;
  }
}
