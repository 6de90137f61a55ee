// An agent and everything below it, as JSON (the folded nodes, children nested) or as Markdown for
// notes and issues: each agent's task, turns with code and output, and answer.
import type { AgentNode, RunView } from '../../../../app/api/index.ts';
import { answerText } from './agent-summary.ts';

export interface SubtreeJson extends Omit<AgentNode, 'children'> {
  children: SubtreeJson[];
}

export function subtreeJson(view: RunView, agentId: string): SubtreeJson | null {
  const agent = view.agents.get(agentId);
  if (!agent) return null;
  return {
    ...agent,
    children: agent.children
      .map((child) => subtreeJson(view, child))
      .filter((child) => child !== null),
  };
}

const fenceFor = (text: string) => '`'.repeat(Math.max(3, longestRun(text) + 1));
function longestRun(text: string): number {
  let longest = 0;
  for (const match of text.matchAll(/`+/g)) longest = Math.max(longest, match[0].length);
  return longest;
}
const block = (text: string, language = '') => {
  const fence = fenceFor(text);
  return `${fence}${language}\n${text}\n${fence}`;
};

export function subtreeMarkdown(view: RunView, agentId: string): string {
  const out: string[] = [];
  const visit = (id: string) => {
    const agent = view.agents.get(id);
    if (!agent) return;
    const heading = '#'.repeat(Math.min(6, agent.depth + 2));
    out.push(`${heading} Agent ${agent.id} (${agent.state})`, '', `Task: ${agent.prompt}`, '');
    for (const turn of agent.turns) {
      out.push(`**Turn ${String(turn.turn)}**`, '');
      for (const code of turn.code) {
        out.push(block(code.code, 'python'), '');
        const output = [
          code.stdout,
          code.stderr,
          code.error ? `${code.error.type}: ${code.error.message}` : '',
        ]
          .filter((part) => part !== '')
          .join('\n');
        if (output !== '') out.push(block(output), '');
      }
    }
    if (agent.state === 'done') out.push(`Answer: ${answerText(agent.answer)}`, '');
    if (agent.error) out.push(`Failed: ${agent.error.name}: ${agent.error.message}`, '');
    for (const child of agent.children) visit(child);
  };
  visit(agentId);
  return out.join('\n').trimEnd() + '\n';
}
