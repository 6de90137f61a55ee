// A compact live view of a run's agent tree for a terminal: one line per agent, indented by depth.
import type { AgentNode, RunView } from '../../app/run-log/index.ts';

const marks: Record<AgentNode['state'], string> = {
  running: '…',
  waiting: '⧗',
  done: '✓',
  failed: '✗',
};

function answerPreview(answer: unknown): string {
  if (answer === null || answer === undefined) return '';
  const text = typeof answer === 'string' ? answer : JSON.stringify(answer);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

export function renderTree(view: RunView, width = 100): string[] {
  const lines: string[] = [];
  const visit = (id: string) => {
    const node = view.agents.get(id);
    if (!node) return;
    const tokens = node.inputTokens + node.outputTokens;
    const detail = node.state === 'failed' ? (node.error?.name ?? '') : answerPreview(node.answer);
    const prompt =
      node.parentId === null
        ? ''
        : ` "${node.prompt.slice(0, 40)}${node.prompt.length > 40 ? '…' : ''}"`;
    const line = `${'  '.repeat(node.depth)}${marks[node.state]} ${node.id}${prompt}  turns ${node.turns.length}  ${tokens} tok  ${detail}`;
    lines.push(line.length > width ? `${line.slice(0, width - 1)}…` : line);
    for (const child of node.children) visit(child);
  };
  visit('0');
  return lines;
}
