// Turns a run's snapshot into React Flow nodes and edges. Node objects are reused while an agent's
// revision, position, selection and search mark stay the same, so React Flow re-renders only the
// cards whose agent changed (a 512-agent run at 100 events/s touches a handful per frame).
import { Position, type Edge, type Node, type NodeHandle } from '@xyflow/react';
import type { AgentTraining } from '../../../../app/api/index.ts';
import { cut, type AgentNode, type RunView } from '../../../../app/run-log/index.ts';
import { summarizeAgent, type AgentSummary } from './agent-summary.ts';
import type { RunSnapshot } from './run-store.ts';
import { nodeHeight, nodeWidth, type Point } from './tree-layout.ts';

export interface AgentCardData extends Record<string, unknown> {
  summary: AgentSummary;
  match: boolean;
  /** How the agent was trained, when the run is a training rollout opened from its job. */
  training?: AgentTraining | undefined;
}
export type AgentCardNode = Node<AgentCardData, 'agent'>;

interface Cached {
  revision: number;
  point: Point;
  selected: boolean;
  match: boolean;
  tick: number;
  training: AgentTraining | undefined;
  node: AgentCardNode;
}

/** Running agents' clocks advance in whole seconds: their cards redraw at most once a second. */
const tickMs = 1000;

/**
 * Short enough that sibling edges' labels (above their cards, a card and a gap apart: 272 flow
 * units) do not run into each other at 10 px (e2e/debugger.e2e.test.ts checks they do not).
 */
export const edgeLabelChars = 36;

export function edgeLabel(prompt: string): string {
  return cut(prompt, edgeLabelChars);
}

/** React Flow's default handle box (6 px, border included), centred on the card's top and bottom edge. */
const handleSize = 6;
/**
 * Every card's two handles, declared so React Flow need not render and measure a card before it can
 * draw its edges or cull it: without them it renders all 512 cards of a large run on the first paint
 * (a node with no handle bounds is always drawn), measures each and then drops all but those in view.
 */
export const cardHandles: NodeHandle[] = [
  {
    type: 'target',
    position: Position.Top,
    x: (nodeWidth - handleSize) / 2,
    y: -handleSize / 2,
    width: handleSize,
    height: handleSize,
  },
  {
    type: 'source',
    position: Position.Bottom,
    x: (nodeWidth - handleSize) / 2,
    y: nodeHeight - handleSize / 2,
    width: handleSize,
    height: handleSize,
  },
];

/** Where a card goes before the next layout: under its parent (or the origin). */
function provisionalPoint(agent: AgentNode, points: ReadonlyMap<string, Point>): Point {
  const parent = agent.parentId !== null ? points.get(agent.parentId) : undefined;
  return parent ? { x: parent.x, y: parent.y + nodeHeight * 1.8 } : { x: 0, y: 0 };
}

export class TreeGraphBuilder {
  private readonly cache = new Map<string, Cached>();
  private readonly edges = new Map<string, Edge>();
  private edgeList: Edge[] = [];

  build(
    snapshot: RunSnapshot,
    points: ReadonlyMap<string, Point>,
    selectedId: string | undefined,
    matches: ReadonlySet<string>,
    now: number,
    /** Build only these agents' cards (a large tree's first paint); the rest on a later call. */
    only: ReadonlySet<string> | null = null,
    training: ReadonlyMap<string, AgentTraining> | null = null,
  ): { nodes: AgentCardNode[]; edges: Edge[] } {
    const view: RunView = snapshot.view;
    const nodes: AgentCardNode[] = [];
    let edgesChanged = false;
    for (const agent of view.agents.values()) {
      if (only && !only.has(agent.id)) continue;
      const revision = snapshot.revisions.get(agent.id) ?? 0;
      const point = points.get(agent.id) ?? provisionalPoint(agent, points);
      const selected = agent.id === selectedId;
      const match = matches.has(agent.id);
      const trained = training?.get(agent.id);
      const cached = this.cache.get(agent.id);
      // A running agent's clock: whole seconds since it started (not since the epoch, which put
      // a just-started agent at "0 ms" for up to a second).
      const tick =
        agent.finishedAt === null ? Math.max(0, Math.floor((now - agent.startedAt) / tickMs)) : -1;
      const fresh =
        cached?.revision === revision &&
        cached.point.x === point.x &&
        cached.point.y === point.y &&
        cached.selected === selected &&
        cached.match === match &&
        cached.tick === tick &&
        cached.training === trained;
      if (cached && fresh) {
        nodes.push(cached.node);
        continue;
      }
      const node = agentCard(agent, point, { selected, match, tick, now, training: trained });
      this.cache.set(agent.id, { revision, point, selected, match, tick, training: trained, node });
      nodes.push(node);
      if (this.#addEdge(agent)) edgesChanged = true;
    }
    // The store was reset (a replay seeking back): forget what is gone.
    if (this.cache.size > view.agents.size && this.#forgetGone(view)) edgesChanged = true;
    if (edgesChanged) this.edgeList = [...this.edges.values()];
    return { nodes, edges: this.edgeList };
  }

  /** The edge into a child card, once; true when it is new. */
  #addEdge(agent: AgentNode): boolean {
    if (agent.parentId === null || this.edges.has(agent.id)) return false;
    this.edges.set(agent.id, {
      id: `e${agent.id}`,
      source: agent.parentId,
      target: agent.id,
      label: edgeLabel(agent.prompt),
      // A bezier drawn by SubQuestionEdge, its label just above the child's card.
      type: 'subquestion',
      data: { prompt: agent.prompt },
    });
    return true;
  }

  /** Drops the cards and edges of agents no longer in the view; true when an edge went. */
  #forgetGone(view: RunView): boolean {
    let edgesChanged = false;
    for (const id of this.cache.keys()) if (!view.agents.has(id)) this.cache.delete(id);
    for (const id of this.edges.keys())
      if (!view.agents.has(id)) {
        this.edges.delete(id);
        edgesChanged = true;
      }
    return edgesChanged;
  }
}

function agentCard(
  agent: AgentNode,
  point: Point,
  card: {
    selected: boolean;
    match: boolean;
    tick: number;
    now: number;
    training: AgentTraining | undefined;
  },
): AgentCardNode {
  const { selected, match, tick, now, training } = card;
  return {
    id: agent.id,
    type: 'agent',
    position: point,
    // Fixed sizes and handles: React Flow need not measure 512 cards before it can fit or cull them.
    width: nodeWidth,
    height: nodeHeight,
    measured: { width: nodeWidth, height: nodeHeight },
    handles: cardHandles,
    selected,
    draggable: false,
    connectable: false,
    data: {
      summary: summarizeAgent(agent, tick < 0 ? now : agent.startedAt + tick * tickMs),
      match,
      ...(training ? { training } : {}),
    },
  };
}
