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
  /**
   * Time one execution's own Python may run before it is interrupted. Time the agent spends
   * suspended in rlm_query/llm_query/search awaiting the host is not counted: the loop budgets
   * child runs and model calls itself (RLM-SPEC: a child rollout may take 600 s, an execution 180 s).
   */
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

/** One keyword hit; `text` is always the exact slice `source.slice(start, end)`. */
export interface SearchHit {
  start: number;
  end: number;
  text: string;
}

/** The search result over named texts: hits per text id; `fuzzy` when no text matched exactly. */
export interface SearchHits {
  fuzzy: boolean;
  hits: Record<string, SearchHit[]>;
}

/**
 * The REPL's `search(text, keyword, window, bidirectional)`, as the host provides it: keyword
 * search over named texts (app/papers/search's `keywordSearchSet` has this shape). A str argument
 * arrives as `{'': text}`. The same `texts` object comes back for an agent's own context, so an
 * implementation may cache an index per object.
 */
export type ReplSearch = (
  texts: Readonly<Record<string, string>>,
  keyword: string,
  options: { window: number; bidirectional: boolean },
) => SearchHits;

/** An agent's context: root agents get paper id -> text, children the string they were given. */
export type AgentContext = string | Readonly<Record<string, string>>;

export interface ReplStartOptions {
  callbacks: ReplCallbacks;
  limits?: Partial<ReplLimits>;
  /** Defaults to app/papers/search's keyword search with an index cached per context. */
  search?: ReplSearch;
  /** Node binary for the interpreter process (default: this process's). */
  nodePath?: string;
  /** Budget for showing variables (model-defined __repr__) after a run (default 2000 ms). */
  collectTimeoutMs?: number;
  /**
   * Extra time past the execution limit before an interpreter that stops answering (a C loop that
   * never checks for interrupts) is killed and restarted (default 5000 ms).
   */
  hangGraceMs?: number;
}
