// What a run is given (RunOptions) and what it gives back (RunOutcome); a fork's recorded children.
import type { Budgets, CodeBlockPolicy, RunEvent } from '../api/index.ts';
import type { Provider } from '../models/provider.ts';
import type { CallLimiter } from './call-limiter.ts';
import type { Literal } from './literal.ts';
import type { PromptStyle } from './prompts.ts';
import type { AgentSandbox } from './run-context.ts';

export interface RunOptions {
  runId: string;
  question: string;
  set: string;
  /** paper id -> the text the REPL sees (### PAPER header, abstract, full text). */
  papers: Record<string, string>;
  provider: Provider;
  sandbox: AgentSandbox;
  budgets: Budgets;
  codeBlocks?: CodeBlockPolicy;
  promptStyle?: PromptStyle;
  outputLimit?: number;
  /** Serialises model calls over the run's in-flight budget (shared by concurrent runs if given). */
  limiter?: CallLimiter;
  emit: (event: RunEvent) => void;
  signal?: AbortSignal;
  forkOf?: { runId: string; agentId: string; turn: number };
  /**
   * A fork's recorded children: called before a child runs; a recorded one is not run again, its
   * stored events are re-emitted and its stored answer returned (see fork.ts).
   */
  recordedChild?: (parentId: string, childId: string, parentTurn: number) => RecordedChild | null;
}

export interface RecordedChild {
  answer: Literal;
  error: { name: string; message: string } | null;
  /** The child's subtree events from the original log (agent.spawned first). */
  events: RunEvent[];
}

export interface RunOutcome {
  status: 'done' | 'failed' | 'canceled';
  answer: Literal;
  error: { name: string; message: string } | null;
}
