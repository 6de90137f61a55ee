// What the Run view draws for each agent, derived from the fold (run-tree.ts): state, turns,
// tokens, cost, time, the start of its answer, and the sub-question on the edge from its parent.
// Pure, so a live run, a replay and a stored run draw from the same function.
import type { AgentState, RunView } from './run-tree.ts';

export interface AgentTreeNode {
  id: string;
  parentId: string | null;
  depth: number;
  state: AgentState;
  turns: number;
  inputTokens: number;
  outputTokens: number;
  tokens: number;
  costUsd: number | null;
  startedAt: number;
  finishedAt: number | null;
  /** Until now for an agent still working (`now` is given by the caller: pure). */
  durationMs: number;
  /** The start of the answer (strings as written, anything else as JSON); null before one. */
  answerPreview: string | null;
  error: { name: string; message: string } | null;
  children: string[];
  pendingChildren: number;
}

export interface AgentTreeEdge {
  id: string;
  source: string;
  target: string;
  /** The sub-question the parent asked, cut to `labelChars`. */
  label: string;
}

export interface AgentTree {
  nodes: AgentTreeNode[];
  edges: AgentTreeEdge[];
}

export function cut(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, Math.max(0, max - 1)).trimEnd()}…` : flat;
}

export function answerText(answer: unknown): string {
  if (typeof answer === 'string') return answer;
  // undefined (and functions) stringify to undefined, whatever lib.d.ts says.
  const text = JSON.stringify(answer) as string | undefined;
  return text ?? '';
}

export interface AgentTreeOptions {
  now?: number;
  previewChars?: number;
  labelChars?: number;
}

/**
 * One agent's node (what agentTree gives for it), for views that re-derive only the agents whose
 * events arrived; null for an id the run does not have.
 */
export function agentSummary(
  view: RunView,
  id: string,
  options: AgentTreeOptions = {},
): AgentTreeNode | null {
  const agent = view.agents.get(id);
  if (!agent) return null;
  const now = options.now ?? view.finishedAt ?? view.startedAt ?? 0;
  const end = agent.finishedAt ?? view.finishedAt ?? now;
  const answered = agent.state === 'done' && agent.answer !== undefined;
  return {
    id,
    parentId: agent.parentId,
    depth: agent.depth,
    state: agent.state,
    turns: agent.turns.length,
    inputTokens: agent.inputTokens,
    outputTokens: agent.outputTokens,
    tokens: agent.inputTokens + agent.outputTokens,
    costUsd: agent.costUsd,
    startedAt: agent.startedAt,
    finishedAt: agent.finishedAt,
    durationMs: Math.max(0, end - agent.startedAt),
    answerPreview: answered ? cut(answerText(agent.answer), options.previewChars ?? 80) : null,
    error: agent.error,
    children: [...agent.children],
    pendingChildren: agent.pendingChildren,
  };
}

/** The edge from an agent's parent, labelled with the sub-question; null for the root. */
export function agentEdge(
  view: RunView,
  id: string,
  options: AgentTreeOptions = {},
): AgentTreeEdge | null {
  const agent = view.agents.get(id);
  const parentId = agent?.parentId ?? null;
  if (!agent || parentId === null) return null;
  return {
    id: `${parentId}->${id}`,
    source: parentId,
    target: id,
    label: cut(agent.prompt, options.labelChars ?? 60),
  };
}

/** Nodes in depth-first order (parents before children, children in spawn order) and edges. */
export function agentTree(view: RunView, options: AgentTreeOptions = {}): AgentTree {
  const nodes: AgentTreeNode[] = [];
  const edges: AgentTreeEdge[] = [];
  const visit = (id: string) => {
    const node = agentSummary(view, id, options);
    if (!node) return;
    nodes.push(node);
    const edge = agentEdge(view, id, options);
    if (edge) edges.push(edge);
    for (const child of node.children) visit(child);
  };
  for (const agent of view.agents.values()) if (agent.parentId === null) visit(agent.id);
  return { nodes, edges };
}
