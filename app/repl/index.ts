// app/repl: the Python sandbox. One Pyodide interpreter (in its own locked-down process) hosts many
// agents' namespaces, with the RLM built-ins, limits (time, memory, output) and host isolation.
export { ReplSandbox } from './sandbox.ts';
export { defaultLimits, resolveLimits } from './limits.ts';
export * from './errors.ts';
export { benchRepl, type ReplBenchResult } from './repl.bench.ts';
export type {
  AgentContext,
  ExecutionResult,
  ReplCallbacks,
  ReplLimits,
  ReplSearch,
  ReplStartOptions,
  ReplValue,
  SearchHit,
  SearchHits,
} from './types.ts';
