// Copying an agent's subtree (the Run view's "copy as JSON / Markdown"): the agent, its turns and
// every descendant, nested. Pure, over the fold.
import { answerText } from './agent-tree.ts';
import type { AgentNode, RunView, TurnView } from './run-tree.ts';

export interface SubtreeJson {
  id: string;
  prompt: string;
  state: AgentNode['state'];
  answer: unknown;
  error: AgentNode['error'];
  inputTokens: number;
  outputTokens: number;
  costUsd: number | null;
  turns: TurnView[];
  children: SubtreeJson[];
}

export class UnknownAgentError extends Error {
  override readonly name = 'UnknownAgentError';
  constructor(agentId: string) {
    super(`This run has no agent '${agentId}'; agent ids are tree paths like '0' or '0.1.2'`);
  }
}

export function subtreeJson(view: RunView, agentId: string): SubtreeJson {
  const agent = view.agents.get(agentId);
  if (!agent) throw new UnknownAgentError(agentId);
  return {
    id: agent.id,
    prompt: agent.prompt,
    state: agent.state,
    answer: agent.answer,
    error: agent.error,
    inputTokens: agent.inputTokens,
    outputTokens: agent.outputTokens,
    costUsd: agent.costUsd,
    turns: agent.turns,
    children: agent.children.map((child) => subtreeJson(view, child)),
  };
}

function fence(text: string, language = ''): string {
  const ticks = '`'.repeat(Math.max(3, ...[...text.matchAll(/`+/g)].map((m) => m[0].length + 1)));
  return `${ticks}${language}\n${text.replace(/\n$/, '')}\n${ticks}`;
}

export function subtreeMarkdown(view: RunView, agentId: string): string {
  const agent = view.agents.get(agentId);
  if (!agent) throw new UnknownAgentError(agentId);
  const level = '#'.repeat(Math.min(6, agent.depth + 2));
  const parts: string[] = [
    `${level} Agent ${agent.id} (${agent.state})`,
    '',
    `**${agent.parentId === null ? 'Question' : 'Sub-question'}:** ${agent.prompt}`,
    '',
    `Tokens: ${agent.inputTokens} in, ${agent.outputTokens} out${agent.costUsd !== null ? `; cost $${agent.costUsd.toFixed(4)}` : ''}`,
    '',
  ];
  for (const turn of agent.turns) {
    parts.push(`**Turn ${turn.turn + 1}**`, '', fence(turn.response, 'text'), '');
    for (const code of turn.code) {
      parts.push(fence(code.code, 'python'), '');
      const output = [code.stdout, code.stderr].filter((text) => text.length > 0).join('\n');
      if (output.length > 0) parts.push('Output:', '', fence(output, 'text'), '');
    }
  }
  if (agent.state === 'done') parts.push(`**Answer:** ${answerText(agent.answer)}`, '');
  if (agent.error) parts.push(`**Failed:** ${agent.error.name}: ${agent.error.message}`, '');
  const body = parts.join('\n');
  return [body, ...agent.children.map((child) => subtreeMarkdown(view, child))].join('\n');
}
