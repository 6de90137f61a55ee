// The REPL's contract with the RLM loop: many agents share one sandboxed interpreter, each in its
// own namespace. The built-ins that need the loop (rlm_query, llm_query, ...) call back into it.
export type ReplValue =
  null | boolean | number | string | ReplValue[] | { [key: string]: ReplValue };

/** What model code's calls to the loop need from the host; each may take as long as a child run. */
export interface ReplCallbacks {
  /** Spawns a child agent of `agentId` and resolves with its final answer. */
  rlmQuery(agentId: string, prompt: string, context: ReplValue): Promise<ReplValue>;
  /** Children in parallel, in input order; a failed child resolves to an error string in its slot. */
  rlmQueryBatched(
    agentId: string,
    prompts: string[],
    contexts: ReplValue[] | null,
  ): Promise<ReplValue[]>;
  llmQuery(agentId: string, prompt: string): Promise<string>;
  llmQueryBatched(agentId: string, prompts: string[]): Promise<string[]>;
}

export interface ReplLimits {
  /** Wall time of one execution before it is interrupted. */
  timeoutMs: number;
  /** Characters of stdout+stderr kept per execution (the rest is dropped with a note). */
  maxOutputChars: number;
  /** Interpreter heap ceiling; an execution that passes it fails with MemoryError. */
  maxMemoryBytes: number;
}

export interface ExecutionResult {
  stdout: string;
  stderr: string;
  /** Set when the code raised: the Python exception type and message (traceback in stderr). */
  error: { type: string; message: string } | null;
  /** Set when the code called FINAL_VAR(...) with an existing variable or a value. */
  final: { value: ReplValue; source: 'variable' | 'value' } | null;
  /** User variables after the run: name -> short type and repr. */
  variables: { name: string; type: string; repr: string }[];
  durationMs: number;
  /** True when output passed maxOutputChars and was cut. */
  truncated: boolean;
}
