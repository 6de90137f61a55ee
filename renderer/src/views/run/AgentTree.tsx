// The live agent tree (React Flow): a card per agent, edges labelled with sub-questions, laid out by
// tree-layout.ts. The layout is redone when agents are added, at most every `relayoutMs` while the
// run grows; new agents wait under their parent until then.
import {
  Background,
  Controls,
  ReactFlow,
  type NodeMouseHandler,
  type ReactFlowInstance,
} from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import { useEffect, useEffectEvent, useMemo, useRef, useState, type RefObject } from 'react';
import type { AgentTraining } from '../../../../app/api/index.ts';
import { AgentCard } from './AgentCard.tsx';
import { SubQuestionEdge } from './SubQuestionEdge.tsx';
import type { RunSnapshot } from './run-store.ts';
import { TreeGraphBuilder, type AgentCardNode } from './tree-graph.ts';
import {
  agentsInView,
  layoutTree,
  nodeHeight,
  nodeWidth,
  type Point,
  type Viewport,
} from './tree-layout.ts';

const nodeTypes = { agent: AgentCard };
const edgeTypes = { subquestion: SubQuestionEdge };
const relayoutMs = 250;
const fitAllUpTo = 40;
const largeTreeZoom = 0.9;

export interface AgentTreeProps {
  snapshot: RunSnapshot;
  selectedId: string | undefined;
  matches: ReadonlySet<string>;
  /** The clock for running agents (the last event's time). */
  now: number;
  onSelect: (agentId: string) => void;
  /** Each agent's training, when the run is a training rollout opened from its job. */
  training?: ReadonlyMap<string, AgentTraining> | null;
}

function useTreeLayout(snapshot: RunSnapshot): ReadonlyMap<string, Point> {
  // The first layout is made during the first render, so a stored run draws once, in place.
  const [layout, setLayout] = useState<{ structure: number; points: Map<string, Point> }>(() => ({
    structure: snapshot.structure,
    points: layoutTree([...snapshot.view.agents.values()]),
  }));
  const lastRun = useRef(0);
  useEffect(() => {
    if (layout.structure === snapshot.structure) return;
    const run = () => {
      lastRun.current = performance.now();
      setLayout({
        structure: snapshot.structure,
        points: layoutTree([...snapshot.view.agents.values()]),
      });
    };
    // While the run grows, at most one layout per relayoutMs; once it has ended nothing more
    // comes, so its last agents are placed at once (a fast run ended inside that wait).
    const ended = snapshot.view.status !== 'running';
    const wait = ended ? 0 : lastRun.current + relayoutMs - performance.now();
    if (wait <= 0) {
      run();
      return;
    }
    const timer = window.setTimeout(run, wait);
    return () => {
      window.clearTimeout(timer);
    };
  }, [snapshot, layout.structure]);
  return layout.points;
}

function useFirstView(
  snapshot: AgentTreeProps['snapshot'],
  points: ReadonlyMap<string, Point>,
  initialViewport: Viewport | undefined,
): ReadonlySet<string> | null {
  // A large tree's first paint builds and hands React Flow only the cards in the window and their
  // neighbours (and the edges between them): a few dozen nodes to summarize and set up instead of
  // 512. The whole tree follows at the next idle moment.
  const [firstView, setFirstView] = useState(() => {
    if (!initialViewport) return null;
    const seen = agentsInView(points, initialViewport, window.innerWidth, window.innerHeight, 200);
    // With their parents and children, so every edge crossing the window is drawn too.
    const { agents } = snapshot.view;
    const shown = new Set(seen);
    for (const id of seen) {
      const agent = agents.get(id);
      if (agent?.parentId != null) shown.add(agent.parentId);
      for (const child of agent?.children ?? []) shown.add(child);
    }
    return shown;
  });
  useEffect(() => {
    if (!firstView) return;
    const idle = requestIdleCallback(
      () => {
        setFirstView(null);
      },
      { timeout: 300 },
    );
    return () => {
      cancelIdleCallback(idle);
    };
  }, [firstView]);
  return firstView;
}

function useFraming(
  flow: RefObject<ReactFlowInstance<AgentCardNode> | null>,
  points: ReadonlyMap<string, Point>,
  framed: RefObject<boolean>,
) {
  const userMoved = useRef(false);

  // Frame the tree: a small tree is kept whole in view as it grows (until the user pans or zooms);
  // a large one opens on its root at a readable zoom. Called on each layout and once React Flow is
  // ready, whichever comes last.
  const frame = useEffectEvent(() => {
    const instance = flow.current;
    if (!instance || points.size === 0 || userMoved.current) return;
    if (points.size <= fitAllUpTo) {
      framed.current = true;
      void instance.fitView({ padding: 0.15, maxZoom: 1 });
    } else if (!framed.current) {
      framed.current = true;
      const root = points.get('0') ?? { x: 0, y: 0 };
      void instance.setCenter(root.x + nodeWidth / 2, root.y + nodeHeight * 2, {
        zoom: largeTreeZoom,
      });
    }
  });
  useEffect(() => {
    frame();
  }, [points]);
  return { frame, userMoved };
}

/** Keeps the selected agent in sight (keyboard moves, links). */
function useKeepInSight(
  flow: RefObject<ReactFlowInstance<AgentCardNode> | null>,
  selectedId: string | undefined,
  points: ReadonlyMap<string, Point>,
): void {
  useEffect(() => {
    const instance = flow.current;
    const point = selectedId !== undefined ? points.get(selectedId) : undefined;
    if (!instance || !point) return;
    const { x, y, zoom } = instance.getViewport();
    const box = document.querySelector('.agent-tree')?.getBoundingClientRect();
    if (!box) return;
    const left = point.x * zoom + x;
    const top = point.y * zoom + y;
    const inside =
      left >= 0 &&
      top >= 0 &&
      left + nodeWidth * zoom <= box.width &&
      top + nodeHeight * zoom <= box.height;
    if (!inside)
      void instance.setCenter(point.x + nodeWidth / 2, point.y + nodeHeight / 2, {
        zoom: Math.max(zoom, 0.6),
        duration: 150,
      });
  }, [selectedId, points]);
}

// React Flow's props are most of this; layout, framing and following are hooks above.
export function AgentTree({
  snapshot,
  selectedId,
  matches,
  now,
  onSelect,
  training = null,
}: AgentTreeProps) {
  const points = useTreeLayout(snapshot);
  const [builder] = useState(() => new TreeGraphBuilder());
  const flow = useRef<ReactFlowInstance<AgentCardNode> | null>(null);
  // A large tree opens on its root straight away (no second pass after the first paint).
  const [initialViewport] = useState(() => {
    const root = points.get('0');
    return root && points.size > fitAllUpTo
      ? {
          x: 320 - (root.x + nodeWidth / 2) * largeTreeZoom,
          y: 40 - root.y * largeTreeZoom,
          zoom: largeTreeZoom,
        }
      : undefined;
  });
  const framed = useRef(initialViewport !== undefined);
  const firstView = useFirstView(snapshot, points, initialViewport);
  const { nodes, edges } = useMemo(
    () => builder.build(snapshot, points, selectedId, matches, now, firstView, training),
    // The snapshot's version stands for the mutable view it carries.
    [builder, snapshot.version, points, selectedId, matches, now, firstView, training],
  );
  const shownEdges = useMemo(
    () =>
      firstView
        ? edges.filter((edge) => firstView.has(edge.source) && firstView.has(edge.target))
        : edges,
    [firstView, edges],
  );
  const { frame, userMoved } = useFraming(flow, points, framed);

  useKeepInSight(flow, selectedId, points);

  const onNodeClick: NodeMouseHandler<AgentCardNode> = (_event, node) => {
    onSelect(node.id);
  };

  return (
    <div className="agent-tree" data-testid="agent-tree" data-agents={snapshot.view.agents.size}>
      <ReactFlow<AgentCardNode>
        nodes={nodes}
        edges={shownEdges}
        nodeTypes={nodeTypes}
        edgeTypes={edgeTypes}
        onInit={(instance) => {
          flow.current = instance;
          frame();
        }}
        onNodeClick={onNodeClick}
        {...(initialViewport ? { defaultViewport: initialViewport } : {})}
        onMoveStart={(event) => {
          // Programmatic moves (fitView, setCenter) come without an event.
          if (event) userMoved.current = true;
        }}
        disableKeyboardA11y
        nodesDraggable={false}
        nodesConnectable={false}
        elementsSelectable={false}
        onlyRenderVisibleElements
        minZoom={0.05}
        maxZoom={2}
        proOptions={{ hideAttribution: true }}
      >
        <Background />
        <Controls showInteractive={false} />
      </ReactFlow>
    </div>
  );
}
