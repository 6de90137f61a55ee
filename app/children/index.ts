// app/children: how the engine's child processes and worker threads are declared and started.
export {
  ChildEntry,
  ChildEntryError,
  ChildScriptMissingError,
  assertChildEntry,
  childEnv,
  defineChild,
  runAsNodeEnv,
  unpackedPath,
  type ChildFiles,
  type ChildRuntime,
  type ChildScript,
} from './child-entry.ts';
export { forkChild, spawnChild, startWorker } from './start.ts';
export { LineChild, namedError, type LineChildOptions, type LineReply } from './line-child.ts';
