// A stand-in REPL for loop tests: "code" is a JSON command instead of Python, so the loop's logic
// (ids, budgets, events, batching) is tested fast and apart from Pyodide (tested in app/repl).
import type { ExecutionResult, ReplCallbacks, ReplValue } from '../repl/types.ts';
import type { DisposableSandbox } from './service.ts';

type Command =
  | { print: string }
  | { final: ReplValue }
  | { finalVar: string }
  | { rlm: string; context?: string; keep?: string }
  | { batched: string[]; keep?: string }
  | { llm: string; keep?: string }
  | { raise: string }
  | { sleepMs: number };

export function fakeSandbox(
  callbacks: ReplCallbacks,
  log: string[] = [],
): DisposableSandbox & { contexts: Map<string, unknown> } {
  const vars = new Map<string, Map<string, ReplValue>>();
  const contexts = new Map<string, unknown>();
  const result = (partial: Partial<ExecutionResult>): ExecutionResult => ({
    stdout: '',
    stderr: '',
    error: null,
    final: null,
    variables: [],
    durationMs: 0,
    truncated: false,
    ...partial,
  });
  return {
    contexts,
    createAgent(key, context) {
      vars.set(key, new Map());
      contexts.set(key, context);
      log.push(`create ${key}`);
      return Promise.resolve();
    },
    async run(key, code) {
      const scope = vars.get(key);
      if (!scope) throw new Error(`no agent ${key}`);
      const command = JSON.parse(code) as Command;
      if ('print' in command) return result({ stdout: `${command.print}\n` });
      if ('final' in command) return result({ final: { value: command.final, source: 'value' } });
      if ('finalVar' in command) {
        const value = scope.get(command.finalVar);
        return value === undefined
          ? result({ stderr: `FINAL_VAR: no variable '${command.finalVar}'` })
          : result({ final: { value, source: 'variable' } });
      }
      if ('raise' in command)
        return result({
          stderr: `Traceback...\nValueError: ${command.raise}`,
          error: { type: 'ValueError', message: command.raise },
        });
      if ('sleepMs' in command) {
        await new Promise((resolve) => setTimeout(resolve, command.sleepMs));
        return result({});
      }
      try {
        let value: ReplValue;
        if ('rlm' in command)
          value = await callbacks.rlmQuery(key, command.rlm, command.context ?? null);
        else if ('batched' in command)
          value = await callbacks.rlmQueryBatched(key, command.batched, null);
        else value = await callbacks.llmQuery(key, command.llm);
        scope.set(command.keep ?? 'answer', value);
        return result({ stdout: `${JSON.stringify(value)}\n` });
      } catch (error) {
        const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
        return result({ stderr: message, error: { type: 'RuntimeError', message } });
      }
    },
    disposeAgent(key) {
      vars.delete(key);
      log.push(`dispose ${key}`);
    },
    dispose: () => Promise.resolve(),
  };
}
