// Places the agent tree top to bottom, parents above their children. Pure: the same agents give the
// same positions, so a replay and a live run lay out alike. Small trees go through dagre; from
// `dagreLimit` agents on, a linear tidy-tree pass does it: dagre measured 300-500 ms for 512 agents
// here (longest-path is faster but drops leaves to the last rank), too slow to redo while a run grows.
import { Graph, layout } from '@dagrejs/dagre';

export const nodeWidth = 232;
export const nodeHeight = 92;
const nodeGap = 40;
const rankGap = 72;
export const dagreLimit = 160;

export interface TreeLink {
  id: string;
  parentId: string | null;
}

export interface Point {
  x: number;
  y: number;
}

/** Top-left corners (React Flow's convention) of every agent's card. */
export function layoutTree(agents: readonly TreeLink[]): Map<string, Point> {
  return agents.length < dagreLimit ? dagreLayout(agents) : tidyLayout(agents);
}

export function dagreLayout(agents: readonly TreeLink[]): Map<string, Point> {
  const graph = new Graph<object, { width: number; height: number; x: number; y: number }>();
  graph.setGraph({ rankdir: 'TB', nodesep: nodeGap, ranksep: rankGap });
  graph.setDefaultEdgeLabel(() => ({}));
  for (const agent of agents)
    graph.setNode(agent.id, { width: nodeWidth, height: nodeHeight, x: 0, y: 0 });
  for (const { id, parentId } of agents)
    if (parentId !== null && graph.hasNode(parentId)) graph.setEdge(parentId, id);
  layout(graph);
  const points = new Map<string, Point>();
  for (const { id } of agents) {
    const node = graph.node(id);
    points.set(id, { x: node.x - nodeWidth / 2, y: node.y - nodeHeight / 2 });
  }
  return points;
}

/** Leaves take consecutive slots left to right in spawn order; a parent centres over its children. */
export function tidyLayout(agents: readonly TreeLink[]): Map<string, Point> {
  const children = new Map<string, string[]>();
  const roots: string[] = [];
  const known = new Set(agents.map((agent) => agent.id));
  for (const { id, parentId } of agents) {
    if (parentId === null || !known.has(parentId)) roots.push(id);
    else {
      const list = children.get(parentId);
      if (list) list.push(id);
      else children.set(parentId, [id]);
    }
  }
  const points = new Map<string, Point>();
  let nextSlot = 0;
  // Iterative post-order (a deep chain must not overflow the stack).
  const stack: { id: string; depth: number; visited: boolean }[] = roots
    .map((id) => ({ id, depth: 0, visited: false }))
    .reverse();
  while (stack.length > 0) {
    const top = stack[stack.length - 1];
    if (!top) break;
    const kids = children.get(top.id) ?? [];
    if (!top.visited && kids.length > 0) {
      top.visited = true;
      for (let index = kids.length - 1; index >= 0; index--)
        stack.push({ id: kids[index] ?? '', depth: top.depth + 1, visited: false });
      continue;
    }
    stack.pop();
    const y = top.depth * (nodeHeight + rankGap);
    if (kids.length === 0) {
      points.set(top.id, { x: nextSlot * (nodeWidth + nodeGap), y });
      nextSlot++;
    } else {
      const first = points.get(kids[0] ?? '')?.x ?? 0;
      const last = points.get(kids[kids.length - 1] ?? '')?.x ?? first;
      points.set(top.id, { x: (first + last) / 2, y });
    }
  }
  return points;
}

export interface Viewport {
  x: number;
  y: number;
  zoom: number;
}

/**
 * The agents whose cards fall (even partly) in a `width` x `height` screen area seen through
 * `viewport` (React Flow's: screen = flow * zoom + offset), with `margin` screen pixels around it.
 */
export function agentsInView(
  points: ReadonlyMap<string, Point>,
  viewport: Viewport,
  width: number,
  height: number,
  margin = 0,
): Set<string> {
  const left = (-margin - viewport.x) / viewport.zoom;
  const top = (-margin - viewport.y) / viewport.zoom;
  const right = (width + margin - viewport.x) / viewport.zoom;
  const bottom = (height + margin - viewport.y) / viewport.zoom;
  const seen = new Set<string>();
  for (const [id, { x, y }] of points)
    if (x + nodeWidth >= left && x <= right && y + nodeHeight >= top && y <= bottom) seen.add(id);
  return seen;
}
