// How a child process or worker thread is named: its own folder declares it (`defineChild`, in the
// module that owns the child's entry, with the entry's path relative to that module, never
// climbing out of its folder), and whoever starts it imports that declaration like any other
// module, so the layering lint sees the edge. start.ts is the only place that hands a script to
// spawn, fork or Worker, and it takes nothing but a ChildEntry.
// The script is the TypeScript source beside the declaring module, run by Node 24 (an older runtime
// hands over to the project's pinned one, as bin/rlm-studio.js does); where the declaring module
// runs from the desktop bundle (dist/electron/main.cjs, inside app.asar once packaged, which
// Electron run as Node reads) no source is beside it, and the bundle's script is used.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Node from the project's devDependencies, whose type stripping runs the sources (Node 24). */
const pinnedNode = fileURLToPath(new URL('../../node_modules/node/bin/node', import.meta.url));

/** A child declared with a path that is not its own folder's, or started from something else. */
export class ChildEntryError extends Error {
  override readonly name = 'ChildEntryError';
}

/** Neither the bundled script nor its source is there (a broken build or install). */
export class ChildScriptMissingError extends Error {
  override readonly name = 'ChildScriptMissingError';
  constructor(bundled: string, source: string) {
    super(
      `neither ${bundled} (the desktop build writes it: npm run build:electron) nor its source ${source} exists`,
    );
  }
}

export interface ChildFiles {
  /** The entry module, relative to the declaring module: './x.ts' or './sub/x.ts'. */
  source: string;
  /** The file scripts/build-electron.ts writes for it, relative to the desktop bundle's folder. */
  bundled: string;
  /** The bundled script is read from app.asar.unpacked (a child under --permission reads plain files). */
  unpacked?: boolean;
}

/** The binary to run and the script it runs; `bundled` when the script is the desktop build's. */
export interface ChildScript {
  execPath: string;
  script: string;
  bundled: boolean;
}

export interface ChildRuntime {
  execPath: string;
  /** process.versions.node: the sources need type stripping (Node 24). */
  nodeVersion: string;
}

/**
 * The real path of a file inside a packaged app.asar: electron-builder unpacks what a child run as
 * Node under --permission reads (electron-builder.yml, asarUnpack) to app.asar.unpacked. Paths
 * outside an app.asar come back unchanged.
 */
export function unpackedPath(path: string): string {
  return path.replace(/([\\/])app\.asar(?=[\\/]|$)/, '$1app.asar.unpacked');
}

const ownFolder = /^\.\/(?:[\w-]+\/)*[\w.-]+\.ts$/;

/** A declared child: made only by defineChild, taken by start.ts and resolveChild. */
export class ChildEntry {
  readonly #dir: string;
  readonly #files: ChildFiles;

  /** Use defineChild. */
  constructor(dir: string, files: ChildFiles) {
    this.#dir = dir;
    this.#files = files;
  }

  /** The same declaration as seen from another folder (tests: a packaged app's layout). */
  in(dir: string): ChildEntry {
    return new ChildEntry(dir, this.#files);
  }

  /** The entry's source path as declared (for messages and tests). */
  get source(): string {
    return join(this.#dir, this.#files.source);
  }

  /** Where it starts from now: the source beside the declaring module, else the bundle's script. */
  resolve(
    runtime: ChildRuntime = { execPath: process.execPath, nodeVersion: process.versions.node },
    pinned: string = pinnedNode,
  ): ChildScript {
    const source = this.source;
    if (existsSync(source)) {
      const major = Number(runtime.nodeVersion.split('.')[0]);
      return {
        execPath: major >= 24 || !existsSync(pinned) ? runtime.execPath : pinned,
        script: source,
        bundled: false,
      };
    }
    const bundled = join(this.#dir, this.#files.bundled);
    const script = this.#files.unpacked === true ? unpackedPath(bundled) : bundled;
    if (existsSync(script) || existsSync(bundled)) {
      return { execPath: runtime.execPath, script, bundled: true };
    }
    throw new ChildScriptMissingError(bundled, source);
  }
}

/**
 * Declares the child whose entry sits in the declaring module's folder (`declaredIn` is that
 * module's import.meta.url; in the desktop bundle, the bundle's own URL, beside which the build
 * writes `files.bundled`).
 */
export function defineChild(declaredIn: string, files: ChildFiles): ChildEntry {
  if (!ownFolder.test(files.source)) {
    throw new ChildEntryError(
      `a child's entry is declared beside it ('./entry.ts'), not at ${JSON.stringify(files.source)}: declare it in the folder that owns it and import the declaration`,
    );
  }
  return new ChildEntry(dirname(fileURLToPath(declaredIn)), files);
}

/** Throws unless `value` is a declared child (a path handed over as a string is refused). */
export function assertChildEntry(value: unknown): asserts value is ChildEntry {
  if (!(value instanceof ChildEntry)) {
    throw new ChildEntryError(
      `a child process starts from a ChildEntry (defineChild beside its code), not ${typeof value === 'string' ? `the path ${JSON.stringify(value)}` : String(value)}`,
    );
  }
}

/**
 * A child's environment: `base` (what it legitimately needs of the host's), plus, when the host is
 * Electron, the switch that makes Electron's binary (the execPath in the desktop app) run as Node
 * instead of starting a second app.
 */
export function childEnv(
  base: Readonly<Record<string, string | undefined>>,
  versions: Readonly<Partial<Record<string, string>>> = process.versions,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(base)) {
    if (value !== undefined && key !== 'ELECTRON_RUN_AS_NODE') env[key] = value;
  }
  return { ...env, ...runAsNodeEnv(versions) };
}

/** Under Electron, what makes its binary run a script as Node: the only variable a child must get. */
export function runAsNodeEnv(
  versions: Readonly<Partial<Record<string, string>>> = process.versions,
): Record<string, string> {
  return versions.electron === undefined ? {} : { ELECTRON_RUN_AS_NODE: '1' };
}
