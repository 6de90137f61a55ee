import { describe, expect, it } from 'vitest';
import {
  agentsInView,
  dagreLayout,
  layoutTree,
  nodeHeight,
  nodeWidth,
  tidyLayout,
  type TreeLink,
} from './tree-layout.ts';

function wideTree(count: number, fanOut: number): TreeLink[] {
  const agents: TreeLink[] = [{ id: '0', parentId: null }];
  for (let i = 0; agents.length < count; i++) {
    const parent = agents[Math.floor(i / fanOut)]?.id ?? '0';
    agents.push({ id: `${parent}.${String(i % fanOut)}`, parentId: parent });
  }
  return agents;
}

function overlaps(points: Map<string, { x: number; y: number }>): boolean {
  const list = [...points.values()];
  return list.some((a, i) =>
    list
      .slice(i + 1)
      .some((b) => Math.abs(a.x - b.x) < nodeWidth && Math.abs(a.y - b.y) < nodeHeight),
  );
}

describe.each([
  ['dagre', dagreLayout],
  ['tidy', tidyLayout],
])('%s layout', (_name, place) => {
  it('puts children below their parent, side by side, without overlaps', () => {
    const points = place([
      { id: '0', parentId: null },
      { id: '0.0', parentId: '0' },
      { id: '0.1', parentId: '0' },
      { id: '0.1.0', parentId: '0.1' },
    ]);
    const at = (id: string) => points.get(id) ?? { x: NaN, y: NaN };
    expect(at('0.0').y).toBeGreaterThanOrEqual(at('0').y + nodeHeight);
    expect(at('0.1.0').y).toBeGreaterThanOrEqual(at('0.1').y + nodeHeight);
    expect(at('0.0').y).toBe(at('0.1').y);
    expect(Math.abs(at('0.0').x - at('0.1').x)).toBeGreaterThanOrEqual(nodeWidth);
    expect(overlaps(points)).toBe(false);
  });
});

describe('layoutTree', () => {
  it('places 512 agents without overlaps in a few milliseconds', () => {
    const agents = wideTree(512, 8);
    const started = performance.now();
    const points = layoutTree(agents);
    const took = performance.now() - started;
    expect(points.size).toBe(512);
    expect(overlaps(points)).toBe(false);
    expect(took).toBeLessThan(50);
  });

  it('survives a 5,000-deep chain', () => {
    const agents: TreeLink[] = [{ id: '0', parentId: null }];
    for (let depth = 1; depth < 5000; depth++)
      agents.push({
        id: `${agents[depth - 1]?.id ?? '0'}.0`,
        parentId: agents[depth - 1]?.id ?? '0',
      });
    expect(tidyLayout(agents).size).toBe(5000);
  });
});

describe('agentsInView', () => {
  it('keeps the cards that fall in the window (partly too), through pan and zoom', () => {
    const points = new Map([
      ['a', { x: 0, y: 0 }],
      ['b', { x: 1000, y: 0 }],
      ['c', { x: -nodeWidth + 1, y: 0 }],
      ['d', { x: 0, y: 2000 }],
    ]);
    expect([...agentsInView(points, { x: 0, y: 0, zoom: 1 }, 800, 600)]).toEqual(['a', 'c']);
    // Zoomed out to a half, the window sees twice as far.
    expect([...agentsInView(points, { x: 0, y: 0, zoom: 0.5 }, 800, 600)]).toEqual(['a', 'b', 'c']);
    // Panned 1,000 px left (the tree moves left on screen): b comes in, a and c go.
    expect([...agentsInView(points, { x: -1000, y: 0, zoom: 1 }, 800, 600)]).toEqual(['b']);
    // A margin reaches past the window's edges.
    expect(agentsInView(points, { x: 0, y: 0, zoom: 1 }, 800, 600, 1500).has('d')).toBe(true);
  });
});
