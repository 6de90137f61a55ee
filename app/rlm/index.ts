// app/rlm: the recursive agent loop (RLM-SPEC section 3), budgets, prompts and the run's event log.
export {
  RlmRun,
  createLimiter,
  type RunOptions,
  type RunOutcome,
  type RecordedChild,
} from './run.ts';
export { ForkPlan, ForkProvider, ForkPointError, replaceCode, type ForkPoint } from './fork.ts';
export {
  runAgentLoop,
  truncateOutput,
  formatExecution,
  defaultOutputLimit,
  type AgentSpec,
} from './agent-loop.ts';
export * from './errors.ts';
export { parseResponse, codeBlockRule, type ParsedResponse } from './response.ts';
export { parseAnswerLiteral, type Literal } from './literal.ts';
export {
  systemPrompt,
  promptFiles,
  loadTemplate,
  fillTemplate,
  PromptTemplateError,
  type PromptStyle,
} from './prompts.ts';
export type { RunContext, AgentSandbox } from './run-context.ts';
export {
  RunService,
  UnknownRunAgentError,
  type SandboxFactory,
  type DisposableSandbox,
  type StartRunRequest,
  type StartedRun,
} from './service.ts';
