// Keyboard moves through a run: agents in tree order (depth first, children in spawn order) and the
// selected agent's turns. Pure: given where the selection is, says where a key takes it.
import type { RunView } from '../../../../app/run-log/index.ts';

export interface Selection {
  agentId: string | undefined;
  turn: number | undefined;
}

export type NavigationMove = 'nextAgent' | 'previousAgent' | 'nextTurn' | 'previousTurn' | 'parent';

export const navigationKeys: Readonly<Record<string, NavigationMove>> = {
  ArrowRight: 'nextAgent',
  l: 'nextAgent',
  ArrowLeft: 'previousAgent',
  h: 'previousAgent',
  ArrowDown: 'nextTurn',
  j: 'nextTurn',
  ArrowUp: 'previousTurn',
  k: 'previousTurn',
  Backspace: 'parent',
};

/** Agent ids in depth-first order from the root. */
export function agentOrder(view: RunView): string[] {
  const order: string[] = [];
  const roots = [...view.agents.values()].filter((agent) => agent.parentId === null);
  const stack = roots.map((agent) => agent.id).reverse();
  while (stack.length > 0) {
    const id = stack.pop();
    if (id === undefined) break;
    order.push(id);
    const children = view.agents.get(id)?.children ?? [];
    for (let index = children.length - 1; index >= 0; index--) stack.push(children[index] ?? '');
  }
  return order;
}

function lastTurn(view: RunView, agentId: string): number | undefined {
  const turns = view.agents.get(agentId)?.turns ?? [];
  return turns[turns.length - 1]?.turn;
}

export function navigate(
  view: RunView,
  order: readonly string[],
  from: Selection,
  move: NavigationMove,
): Selection {
  const current = from.agentId ?? order[0];
  if (current === undefined) return from;
  const agent = view.agents.get(current);
  const turns = agent?.turns.map((turn) => turn.turn) ?? [];
  const turnIndex = from.turn === undefined ? -1 : turns.indexOf(from.turn);
  switch (move) {
    case 'nextAgent':
    case 'previousAgent': {
      if (from.agentId === undefined) return { agentId: current, turn: lastTurn(view, current) };
      const index = order.indexOf(current) + (move === 'nextAgent' ? 1 : -1);
      const target = order[Math.max(0, Math.min(order.length - 1, index))] ?? current;
      return { agentId: target, turn: target === current ? from.turn : lastTurn(view, target) };
    }
    case 'nextTurn':
      return { agentId: current, turn: turns[Math.min(turns.length - 1, turnIndex + 1)] };
    case 'previousTurn':
      return { agentId: current, turn: turns[Math.max(0, turnIndex - 1)] };
    case 'parent': {
      const parent = agent?.parentId ?? current;
      return { agentId: parent, turn: lastTurn(view, parent) };
    }
  }
}
