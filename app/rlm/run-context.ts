// What an agent loop needs from its run: budgets, the event sink, model calls and code execution,
// each checked against the run's limits. Implemented by RlmRun; kept as an interface so the agent
// loop stays small and testable.
import type { Budgets, CodeBlockPolicy, RunEvent } from '../api/index.ts';
import type { ChatMessage, Completion } from '../models/provider.ts';
import type { ExecutionResult } from '../repl/types.ts';
import type { AgentSpec } from './agent-loop.ts';

export interface RunContext {
  readonly budgets: Budgets;
  readonly codeBlocks: CodeBlockPolicy;
  readonly outputLimit: number;
  emit(event: RunEvent): void;
  systemPrompt(agent: AgentSpec): string;
  /** Throws the run's cancellation or budget error once the run must stop. */
  checkAlive(): void;
  setTurn(agentId: string, turn: number): void;
  complete(agentId: string, turn: number, messages: ChatMessage[]): Promise<Completion>;
  execute(agentId: string, code: string): Promise<ExecutionResult>;
}

/** The REPL as a run uses it: one namespace per agent key. */
export interface AgentSandbox {
  createAgent(key: string, context: string | Record<string, string>): Promise<void>;
  run(key: string, code: string, signal?: AbortSignal): Promise<ExecutionResult>;
  disposeAgent(key: string): Promise<void> | void;
}
