// What an agent's card in the tree says, derived from its folded node: state, turns, tokens, cost,
// time and the start of its answer. Pure, so the card, the Markdown export and the tests agree.
import { answerText, cut, type AgentNode, type AgentState } from '../../../../app/run-log/index.ts';

export interface AgentSummary {
  id: string;
  state: AgentState;
  turns: number;
  tokens: number;
  costUsd: number | null;
  elapsedMs: number;
  /** The first characters of the answer (done), the error (failed), or ''. */
  answerStart: string;
}

export const answerStartChars = 80;

/** `now` is the clock for agents still running (a replay passes the replayed time). */
export function summarizeAgent(agent: AgentNode, now: number): AgentSummary {
  return {
    id: agent.id,
    state: agent.state,
    turns: agent.turns.length,
    tokens: agent.inputTokens + agent.outputTokens,
    costUsd: agent.costUsd,
    elapsedMs: Math.max(0, (agent.finishedAt ?? now) - agent.startedAt),
    answerStart:
      agent.state === 'failed' && agent.error
        ? cut(`${agent.error.name}: ${agent.error.message}`, answerStartChars)
        : agent.state === 'done'
          ? cut(answerText(agent.answer), answerStartChars)
          : '',
  };
}

export function formatTokens(tokens: number): string {
  if (tokens < 1000) return String(tokens);
  if (tokens < 1_000_000) return `${(tokens / 1000).toFixed(tokens < 10_000 ? 1 : 0)}k`;
  return `${(tokens / 1_000_000).toFixed(1)}M`;
}

export function formatCost(costUsd: number | null): string {
  if (costUsd === null) return '—';
  if (costUsd === 0) return '$0';
  return costUsd < 0.01 ? `$${costUsd.toFixed(4)}` : `$${costUsd.toFixed(2)}`;
}

/** A running agent's clock, in the whole seconds its card ticks by: "0 s", "42 s", "3 min 5 s". */
export function formatClock(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  if (seconds < 60) return `${String(seconds)} s`;
  return `${String(Math.floor(seconds / 60))} min ${String(seconds % 60)} s`;
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${String(Math.round(ms))} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const minutes = Math.floor(ms / 60_000);
  return `${String(minutes)} min ${String(Math.round((ms % 60_000) / 1000))} s`;
}
