// Where the engine's own child processes (the embedder, the trainer) start from: the script bundled
// beside the desktop shell when this module runs from its bundle (dist/electron/main.cjs, inside
// app.asar once packaged, which Electron run as Node reads), else the TypeScript source, run by
// Node 24 (an older runtime hands over to the project's pinned one, as bin/rlm-studio.js does).
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { interpreterEnv } from '../repl/interpreter-files.ts';

// app/host in the source tree; dist/electron when bundled into the desktop shell's main.cjs.
const hostDir = dirname(fileURLToPath(import.meta.url));

/** A child's script as the build names it beside main.cjs, and as the source tree holds it. */
export interface ChildScriptNames {
  /** The bundle's file name beside main.cjs (scripts/build-electron.ts writes it). */
  bundled: string;
  /** The source entry, relative to app/host. */
  source: string;
}

/** The binary to run and the script it runs. */
export interface ChildScript {
  execPath: string;
  script: string;
}

export interface ChildRuntime {
  execPath: string;
  /** process.versions.node: the sources need type stripping (Node 24). */
  nodeVersion: string;
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

export function childScript(
  names: ChildScriptNames,
  dir: string = hostDir,
  runtime: ChildRuntime = { execPath: process.execPath, nodeVersion: process.versions.node },
): ChildScript {
  const bundled = join(dir, names.bundled);
  if (existsSync(bundled)) return { execPath: runtime.execPath, script: bundled };
  const source = join(dir, names.source);
  if (!existsSync(source)) throw new ChildScriptMissingError(bundled, source);
  const pinned = join(dir, '..', '..', 'node_modules', 'node', 'bin', 'node');
  const major = Number(runtime.nodeVersion.split('.')[0]);
  return {
    execPath: major >= 24 || !existsSync(pinned) ? runtime.execPath : pinned,
    script: source,
  };
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
  return { ...env, ...interpreterEnv(versions) };
}
