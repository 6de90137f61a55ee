import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../../../app/api/index.ts';
import { RunStore } from './run-store.ts';
import { cardHandles, edgeLabel, edgeLabelChars, TreeGraphBuilder } from './tree-graph.ts';
import { layoutTree, nodeHeight, nodeWidth } from './tree-layout.ts';

const spawn = (agentId: string, parentId: string | null, at = 0): RunEvent => ({
  kind: 'agent.spawned',
  at,
  agentId,
  parentId,
  depth: agentId.split('.').length - 1,
  prompt: `question for ${agentId}`,
  contextChars: 1,
});

function storeWith(events: RunEvent[]) {
  const store = new RunStore(() => undefined);
  store.push(...events);
  store.flush();
  return store;
}

describe('TreeGraphBuilder', () => {
  it('makes a node per agent and an edge labelled with the sub-question', () => {
    const store = storeWith([spawn('0', null), spawn('0.0', '0'), spawn('0.1', '0')]);
    const snapshot = store.getSnapshot();
    const points = layoutTree([...snapshot.view.agents.values()]);
    const { nodes, edges } = new TreeGraphBuilder().build(snapshot, points, '0.1', new Set(), 0);
    expect(nodes.map((node) => node.id)).toEqual(['0', '0.0', '0.1']);
    expect(nodes.find((node) => node.id === '0.1')?.selected).toBe(true);
    expect(edges.map((edge) => [edge.source, edge.target, edge.label])).toEqual([
      ['0', '0.0', 'question for 0.0'],
      ['0', '0.1', 'question for 0.1'],
    ]);
  });

  it('redraws the cards when the rollout’s training arrives, and only then', () => {
    const store = storeWith([spawn('0', null), spawn('0.0', '0')]);
    const builder = new TreeGraphBuilder();
    const points = layoutTree([...store.getSnapshot().view.agents.values()]);
    const bare = builder.build(store.getSnapshot(), points, undefined, new Set(), 0);
    expect(bare.nodes.map((n) => n.data.training)).toEqual([undefined, undefined]);
    const child = {
      agentId: '0.0',
      advantage: 0.5,
      inherited: true,
      weight: 1,
      tokenWeight: 0.1,
      trainedTurns: [{ turn: 0, tokens: 2 }],
    };
    const training = new Map([['0.0', child]]);
    const shown = builder.build(
      store.getSnapshot(),
      points,
      undefined,
      new Set(),
      0,
      null,
      training,
    );
    expect(shown.nodes[0]).toBe(bare.nodes[0]);
    expect(shown.nodes[1]?.data.training).toBe(child);
    const again = builder.build(
      store.getSnapshot(),
      points,
      undefined,
      new Set(),
      0,
      null,
      training,
    );
    expect(again.nodes[1]).toBe(shown.nodes[1]);
  });

  it('reuses the node objects of agents that did not change', () => {
    const store = storeWith([spawn('0', null), spawn('0.0', '0'), spawn('0.1', '0')]);
    const builder = new TreeGraphBuilder();
    const points = layoutTree([...store.getSnapshot().view.agents.values()]);
    const first = builder.build(store.getSnapshot(), points, undefined, new Set(), 0);
    store.push({ kind: 'turn.started', at: 1, agentId: '0.1', turn: 0, messages: [] });
    store.flush();
    const second = builder.build(store.getSnapshot(), points, undefined, new Set(), 0);
    expect(second.nodes[0]).toBe(first.nodes[0]);
    expect(second.nodes[1]).toBe(first.nodes[1]);
    expect(second.nodes[2]).not.toBe(first.nodes[2]);
    expect(second.nodes[2]?.data.summary.turns).toBe(1);
    expect(second.edges).toBe(first.edges);
  });

  it('gives every card its size and handles, so React Flow draws and culls it unmeasured', () => {
    const store = storeWith([spawn('0', null), spawn('0.0', '0')]);
    const points = layoutTree([...store.getSnapshot().view.agents.values()]);
    const { nodes } = new TreeGraphBuilder().build(
      store.getSnapshot(),
      points,
      undefined,
      new Set(),
      0,
    );
    for (const node of nodes) {
      expect(node.measured).toEqual({ width: nodeWidth, height: nodeHeight });
      expect(node.handles).toBe(cardHandles);
    }
    // Centred on the top edge (target) and the bottom edge (source), as React Flow's CSS puts them.
    const centre = (type: string) => {
      const handle = cardHandles.find((entry) => entry.type === type);
      return handle && [handle.x + (handle.width ?? 0) / 2, handle.y + (handle.height ?? 0) / 2];
    };
    expect(centre('target')).toEqual([nodeWidth / 2, 0]);
    expect(centre('source')).toEqual([nodeWidth / 2, nodeHeight]);
  });

  it('builds only the agents asked for first, and the rest (edges included) on the next call', () => {
    const store = storeWith([
      spawn('0', null),
      spawn('0.0', '0'),
      spawn('0.1', '0'),
      spawn('0.0.0', '0.0'),
    ]);
    const points = layoutTree([...store.getSnapshot().view.agents.values()]);
    const builder = new TreeGraphBuilder();
    const first = builder.build(
      store.getSnapshot(),
      points,
      undefined,
      new Set(),
      0,
      new Set(['0', '0.0']),
    );
    expect(first.nodes.map((node) => node.id)).toEqual(['0', '0.0']);
    expect(first.edges.map((edge) => edge.target)).toEqual(['0.0']);
    const whole = builder.build(store.getSnapshot(), points, undefined, new Set(), 0);
    expect(whole.nodes.map((node) => node.id)).toEqual(['0', '0.0', '0.1', '0.0.0']);
    expect(whole.nodes[0]).toBe(first.nodes[0]);
    expect(whole.edges.map((edge) => edge.target)).toEqual(['0.0', '0.1', '0.0.0']);
  });

  it("ticks a running agent's clock in whole seconds from its own start", () => {
    const store = storeWith([spawn('0', null, 10_400)]);
    const builder = new TreeGraphBuilder();
    const points = layoutTree([...store.getSnapshot().view.agents.values()]);
    const at = (now: number) =>
      builder.build(store.getSnapshot(), points, undefined, new Set(), now);
    const started = at(10_900).nodes[0];
    expect(started?.data.summary.elapsedMs).toBe(0);
    expect(at(11_300).nodes[0]).toBe(started); // still its first second: the same card
    const later = at(13_500).nodes[0];
    expect(later).not.toBe(started);
    expect(later?.data.summary.elapsedMs).toBe(3_000);
  });

  it('cuts long sub-questions for the edge label', () => {
    expect(edgeLabel('a  b\n' + 'c'.repeat(100))).toHaveLength(edgeLabelChars);
  });
});
