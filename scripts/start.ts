// `npm start`: builds the renderer and the desktop shell, then runs Electron; where Electron's
// binary is missing and cannot be downloaded, runs `rlm-studio serve` instead (same renderer, HTTP).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { constants } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildElectron } from './build-electron.ts';

const projectRoot = fileURLToPath(new URL('..', import.meta.url));
const installTimeoutMs = 60_000;

export type ElectronProbe = { kind: 'found'; binary: string } | { kind: 'missing'; reason: string };
export type InstallOutcome = { ok: true } | { ok: false; reason: string };
export type StartPlan =
  { kind: 'electron'; binary: string } | { kind: 'install' } | { kind: 'serve'; message: string };

/** What to do next, given where Electron's binary stands and whether a download was tried. */
export function planStart(probe: ElectronProbe, install: InstallOutcome | null): StartPlan {
  if (probe.kind === 'found') return { kind: 'electron', binary: probe.binary };
  if (install === null) return { kind: 'install' };
  const reason = install.ok ? probe.reason : install.reason;
  return {
    kind: 'serve',
    message: `Electron's binary is not installed and could not be downloaded (${reason}); starting serve mode instead`,
  };
}

/**
 * Finds Electron's binary. The `electron` package exports its path, and throws when its download
 * never happened; `load` re-evaluates the package each time so a fresh download is seen.
 */
export function probeElectron(
  load: () => unknown,
  exists: (path: string) => boolean,
): ElectronProbe {
  let binary: unknown;
  try {
    binary = load();
  } catch (error) {
    return { kind: 'missing', reason: error instanceof Error ? error.message : String(error) };
  }
  if (typeof binary !== 'string') {
    return { kind: 'missing', reason: 'the electron package did not export a path' };
  }
  if (!exists(binary)) return { kind: 'missing', reason: `no file at '${binary}'` };
  return { kind: 'found', binary };
}

/** The one line of a failed download's output worth showing (the error, not its stack). */
export function installFailureReason(
  stderr: string,
  status: number | null,
  timedOut: boolean,
): string {
  if (timedOut) return `the download did not finish within ${installTimeoutMs / 1000} s`;
  const line = stderr
    .split('\n')
    .map((l) => l.trim())
    .find((l) => l.length > 0 && !l.startsWith('at '));
  return line ?? `install.js exited with status ${String(status)}`;
}

/** A child's exit as our own: its code, or 128 + the signal number when a signal ended it. */
export function exitCodeOf(code: number | null, signal: NodeJS.Signals | null): number {
  if (code !== null) return code;
  if (signal !== null) return 128 + ((constants.signals[signal] as number | undefined) ?? 0);
  return 1;
}

/** Electron run as plain Node would ignore our main entirely. */
export function electronEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const copy = { ...env };
  delete copy.ELECTRON_RUN_AS_NODE;
  return copy;
}

function loadElectronFresh(): unknown {
  const require = createRequire(join(projectRoot, 'package.json'));
  const resolved = require.resolve('electron');
  Reflect.deleteProperty(require.cache, resolved);
  return require(resolved);
}

function run(command: string, args: readonly string[], what: string): void {
  const result = spawnSync(command, args, { cwd: projectRoot, stdio: 'inherit' });
  if (result.error) throw result.error;
  if (result.status !== 0) {
    throw new Error(
      `${what} failed (exit ${exitCodeOf(result.status, result.signal)}); see the output above`,
    );
  }
}

function buildRenderer(): void {
  const vite = createRequire(join(projectRoot, 'package.json'))('vite/package.json') as {
    bin: { vite: string };
  };
  const viteBin = join(projectRoot, 'node_modules', 'vite', vite.bin.vite);
  run(process.execPath, [viteBin, 'build'], 'Building the renderer (vite build)');
}

function installElectron(): InstallOutcome {
  console.log(
    `Electron's binary is missing; trying to download it (up to ${installTimeoutMs / 1000} s)…`,
  );
  const result = spawnSync(
    process.execPath,
    [join(projectRoot, 'node_modules', 'electron', 'install.js')],
    {
      cwd: projectRoot,
      encoding: 'utf8',
      timeout: installTimeoutMs,
      stdio: ['ignore', 'inherit', 'pipe'],
    },
  );
  const timedOut =
    result.error !== undefined && 'code' in result.error && result.error.code === 'ETIMEDOUT';
  if (result.status === 0 && !timedOut) return { ok: true };
  return { ok: false, reason: installFailureReason(result.stderr, result.status, timedOut) };
}

function runUntilExit(command: string, args: readonly string[], env: NodeJS.ProcessEnv): void {
  const child = spawn(command, args, { cwd: projectRoot, stdio: 'inherit', env });
  const forward = (signal: NodeJS.Signals) => {
    child.kill(signal);
  };
  process.on('SIGINT', forward);
  process.on('SIGTERM', forward);
  child.on('error', (error) => {
    console.error(`Could not start '${command}': ${error.message}`);
    process.exit(1);
  });
  child.on('exit', (code, signal) => {
    process.exit(exitCodeOf(code, signal));
  });
}

async function main(args: readonly string[]): Promise<void> {
  buildRenderer();
  await buildElectron({ root: projectRoot });
  const probe = () => probeElectron(loadElectronFresh, existsSync);
  let plan = planStart(probe(), null);
  if (plan.kind === 'install') plan = planStart(probe(), installElectron());
  switch (plan.kind) {
    case 'electron':
      // The project root, not main.cjs: Electron then reads package.json (name, version, main).
      runUntilExit(plan.binary, [projectRoot, ...args], electronEnv(process.env));
      return;
    case 'serve': {
      console.warn(plan.message);
      const cli = join(projectRoot, 'bin', 'rlm-studio.js');
      if (!existsSync(cli))
        throw new Error(`Serve mode needs '${cli}', which is missing; restore it from git`);
      runUntilExit(process.execPath, [cli, 'serve', ...args], process.env);
      return;
    }
    case 'install':
      throw new Error('unreachable: the download was already tried');
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
