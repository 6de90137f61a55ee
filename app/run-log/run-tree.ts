// The agent tree and per-agent timelines as a pure fold over a run's events: a live run, a replay and a
// stored one render from the same function (the CLI, the renderer and the engine share it, hence it
// lives in app/run-log). Applying events one by one gives the same result as folding the whole log.
import type { RunEvent, RunEventOf } from '../api/index.ts';

export type AgentState = 'running' | 'waiting' | 'done' | 'failed';

export interface TurnView {
  turn: number;
  startedAt: number;
  messages: { role: string; content: string }[];
  response: string;
  streaming: boolean;
  inputTokens: number;
  outputTokens: number;
  costUsd: number | null;
  latencyMs: number | null;
  code: {
    block: number;
    code: string;
    stdout: string;
    stderr: string;
    error: { type: string; message: string } | null;
    durationMs: number | null;
    variables: { name: string; type: string; repr: string }[];
  }[];
  children: { childId: string | null; call: 'rlm' | 'llm'; prompt: string }[];
}

export interface AgentNode {
  id: string;
  parentId: string | null;
  depth: number;
  prompt: string;
  state: AgentState;
  turns: TurnView[];
  children: string[];
  answer: unknown;
  error: { name: string; message: string } | null;
  inputTokens: number;
  outputTokens: number;
  costUsd: number | null;
  startedAt: number;
  finishedAt: number | null;
  /** Children spawned and not yet returned. */
  pendingChildren: number;
}

export interface RunView {
  runId: string | null;
  question: string;
  status: 'running' | 'done' | 'failed' | 'canceled' | 'interrupted';
  agents: Map<string, AgentNode>;
  answer: unknown;
  error: { name: string; message: string } | null;
  inputTokens: number;
  outputTokens: number;
  costUsd: number | null;
  startedAt: number | null;
  finishedAt: number | null;
}

export function emptyRunView(): RunView {
  return {
    runId: null,
    question: '',
    status: 'running',
    agents: new Map(),
    answer: null,
    error: null,
    inputTokens: 0,
    outputTokens: 0,
    costUsd: null,
    startedAt: null,
    finishedAt: null,
  };
}

function currentTurn(node: AgentNode | undefined, turn: number): TurnView | undefined {
  return node?.turns.find((view) => view.turn === turn);
}

/** Applies one event to the view (mutating it: views are built by the fold, not shared). */
export function applyRunEvent(view: RunView, event: RunEvent): RunView {
  switch (event.kind) {
    case 'run.started':
      view.runId = event.runId;
      view.question = event.question;
      view.startedAt = event.at;
      break;
    case 'agent.spawned':
      spawnAgent(view, event);
      break;
    case 'turn.started':
      startTurn(view, event);
      break;
    case 'model.delta': {
      const turn = currentTurn(view.agents.get(event.agentId), event.turn);
      if (turn) turn.response += event.text;
      break;
    }
    case 'model.done':
      finishModelCall(view, event);
      break;
    case 'code.started':
      startCode(view, event);
      break;
    case 'repl.output':
      finishCode(view, event);
      break;
    case 'child.call':
      callChild(view, event);
      break;
    case 'child.returned':
      childReturned(view, event);
      break;
    case 'final.answer':
    case 'agent.failed':
      finishAgent(view, event);
      break;
    case 'run.finished':
      view.status = event.status;
      view.answer = event.answer;
      view.error = event.error;
      view.finishedAt = event.at;
      break;
  }
  return view;
}

function spawnAgent(view: RunView, event: RunEventOf<'agent.spawned'>): void {
  view.agents.set(event.agentId, {
    id: event.agentId,
    parentId: event.parentId,
    depth: event.depth,
    prompt: event.prompt,
    state: 'running',
    turns: [],
    children: [],
    answer: null,
    error: null,
    inputTokens: 0,
    outputTokens: 0,
    costUsd: null,
    startedAt: event.at,
    finishedAt: null,
    pendingChildren: 0,
  });
  if (event.parentId !== null) view.agents.get(event.parentId)?.children.push(event.agentId);
}

function startTurn(view: RunView, event: RunEventOf<'turn.started'>): void {
  view.agents.get(event.agentId)?.turns.push({
    turn: event.turn,
    startedAt: event.at,
    messages: event.messages,
    response: '',
    streaming: true,
    inputTokens: 0,
    outputTokens: 0,
    costUsd: null,
    latencyMs: null,
    code: [],
    children: [],
  });
}

function finishModelCall(view: RunView, event: RunEventOf<'model.done'>): void {
  // llm_query calls are keyed '<agent>:llm': their tokens count for the agent that asked.
  const agentId = event.agentId.replace(/:llm$/, '');
  const node = view.agents.get(agentId);
  const turn = agentId === event.agentId ? currentTurn(node, event.turn) : undefined;
  if (turn) {
    turn.response = event.text;
    turn.streaming = false;
    turn.inputTokens = event.usage.inputTokens;
    turn.outputTokens = event.usage.outputTokens;
    turn.costUsd = event.costUsd;
    turn.latencyMs = event.latencyMs;
  }
  if (node) {
    node.inputTokens += event.usage.inputTokens;
    node.outputTokens += event.usage.outputTokens;
    if (event.costUsd !== null) node.costUsd = (node.costUsd ?? 0) + event.costUsd;
  }
  view.inputTokens += event.usage.inputTokens;
  view.outputTokens += event.usage.outputTokens;
  if (event.costUsd !== null) view.costUsd = (view.costUsd ?? 0) + event.costUsd;
}

function startCode(view: RunView, event: RunEventOf<'code.started'>): void {
  currentTurn(view.agents.get(event.agentId), event.turn)?.code.push({
    block: event.block,
    code: event.code,
    stdout: '',
    stderr: '',
    error: null,
    durationMs: null,
    variables: [],
  });
}

function finishCode(view: RunView, event: RunEventOf<'repl.output'>): void {
  const block = currentTurn(view.agents.get(event.agentId), event.turn)?.code.find(
    (entry) => entry.block === event.block,
  );
  if (block)
    Object.assign(block, {
      stdout: event.stdout,
      stderr: event.stderr,
      error: event.error,
      durationMs: event.durationMs,
      variables: event.variables,
    });
}

function callChild(view: RunView, event: RunEventOf<'child.call'>): void {
  const node = view.agents.get(event.agentId);
  currentTurn(node, event.turn)?.children.push({
    childId: event.childId,
    call: event.call,
    prompt: event.prompt,
  });
  if (node && event.call === 'rlm') {
    node.pendingChildren++;
    node.state = 'waiting';
  }
}

function childReturned(view: RunView, event: RunEventOf<'child.returned'>): void {
  const node = view.agents.get(event.agentId);
  if (node && event.childId !== null) {
    node.pendingChildren = Math.max(0, node.pendingChildren - 1);
    if (node.pendingChildren === 0 && node.state === 'waiting') node.state = 'running';
  }
}

function finishAgent(view: RunView, event: RunEventOf<'final.answer' | 'agent.failed'>): void {
  const node = view.agents.get(event.agentId);
  if (!node) return;
  if (event.kind === 'final.answer') {
    node.state = 'done';
    node.answer = event.answer;
  } else {
    node.state = 'failed';
    node.error = event.error;
  }
  node.finishedAt = event.at;
}

export function foldRun(events: readonly RunEvent[]): RunView {
  return events.reduce(applyRunEvent, emptyRunView());
}
