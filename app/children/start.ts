// The one place a script becomes a process or a thread: each call takes a declared ChildEntry
// (child-entry.ts) and refuses anything else, so no source path travels as a string. The lint
// rule `no-restricted-imports` keeps spawn, fork and Worker out of every other module.
import {
  fork,
  spawn,
  type ChildProcess,
  type ChildProcessWithoutNullStreams,
  type ForkOptions,
  type SpawnOptions,
  type SpawnOptionsWithStdioTuple,
  type ChildProcessByStdio,
  type StdioNull,
  type StdioPipe,
} from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';
import { assertChildEntry, type ChildEntry } from './child-entry.ts';

/** Runs the entry's script as `execPath script ...args` (execPath: Node, or Electron as Node). */
export function spawnChild(
  entry: ChildEntry,
  args: readonly string[],
  options: SpawnOptionsWithStdioTuple<StdioPipe, StdioPipe, StdioPipe>,
): ChildProcessWithoutNullStreams;
export function spawnChild(
  entry: ChildEntry,
  args: readonly string[],
  options: SpawnOptionsWithStdioTuple<StdioPipe, StdioNull, StdioPipe>,
): ChildProcessByStdio<Writable, null, Readable>;
export function spawnChild(
  entry: ChildEntry,
  args: readonly string[],
  options: SpawnOptions,
): ChildProcess;
export function spawnChild(
  entry: ChildEntry,
  args: readonly string[],
  options: SpawnOptions,
): ChildProcess {
  assertChildEntry(entry);
  const { execPath, script } = entry.resolve();
  return spawn(execPath, [script, ...args], options);
}

/** Forks the entry's script with an IPC channel; `options.execPath` overrides the resolved one. */
export function forkChild(
  entry: ChildEntry,
  args: readonly string[],
  options: ForkOptions,
): ChildProcess {
  assertChildEntry(entry);
  const { execPath, script } = entry.resolve();
  return fork(script, args, { ...options, execPath: options.execPath ?? execPath });
}

/** Starts the entry as a worker thread of this process. */
export function startWorker(entry: ChildEntry, options: WorkerOptions): Worker {
  assertChildEntry(entry);
  return new Worker(pathToFileURL(entry.resolve().script), options);
}
