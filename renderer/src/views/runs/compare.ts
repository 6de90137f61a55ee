// Two runs side by side: their turns aligned by agent path and turn number (the same place in both
// trees), each row marked same or different, and their final spans split into shared and own.
import { answerText, type RunView, type TurnView } from '../../../../app/run-log/index.ts';

export interface AlignedTurn {
  agentId: string;
  turn: number;
  left: TurnView | null;
  right: TurnView | null;
  /** Same code and same output (or both absent). */
  same: boolean;
}

function turnKey(turn: TurnView): string {
  return JSON.stringify(
    turn.code.map((block) => [block.code, block.stdout, block.stderr, block.error]),
  );
}

function byPlace(view: RunView): Map<string, TurnView> {
  const places = new Map<string, TurnView>();
  for (const agent of view.agents.values())
    for (const turn of agent.turns) places.set(`${agent.id}#${String(turn.turn)}`, turn);
  return places;
}

function comparePlaces(a: string, b: string): number {
  const [agentA = '', turnA = '0'] = a.split('#');
  const [agentB = '', turnB = '0'] = b.split('#');
  const pathA = agentA.split('.').map(Number);
  const pathB = agentB.split('.').map(Number);
  for (let index = 0; index < Math.min(pathA.length, pathB.length); index++) {
    const diff = (pathA[index] ?? 0) - (pathB[index] ?? 0);
    if (diff !== 0) return diff;
  }
  return pathA.length - pathB.length || Number(turnA) - Number(turnB);
}

/** Rows in tree order (depth first by path), then turn. */
export function alignTurns(left: RunView, right: RunView): AlignedTurn[] {
  const a = byPlace(left);
  const b = byPlace(right);
  const places = [...new Set([...a.keys(), ...b.keys()])].sort(comparePlaces);
  return places.map((place) => {
    const [agentId = '', turn = '0'] = place.split('#');
    const l = a.get(place) ?? null;
    const r = b.get(place) ?? null;
    return {
      agentId,
      turn: Number(turn),
      left: l,
      right: r,
      same:
        (l === null) === (r === null) && (l === null || r === null || turnKey(l) === turnKey(r)),
    };
  });
}

export interface SpanComparison {
  shared: string[];
  onlyLeft: string[];
  onlyRight: string[];
}

function spansOf(answer: unknown): string[] {
  if (Array.isArray(answer))
    return answer.map((item) => (typeof item === 'string' ? item : answerText(item)));
  return answer === null || answer === undefined ? [] : [answerText(answer)];
}

export function compareSpans(left: unknown, right: unknown): SpanComparison {
  const a = spansOf(left);
  const b = spansOf(right);
  return {
    shared: a.filter((span) => b.includes(span)),
    onlyLeft: a.filter((span) => !b.includes(span)),
    onlyRight: b.filter((span) => !a.includes(span)),
  };
}
