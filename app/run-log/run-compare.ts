// Comparing two runs side by side (the Runs view): agents matched by tree path, their turns
// aligned by number with what differs, the final answers' spans split into shared and own, and the
// totals. Pure, over two folds.
import { answerText } from './agent-tree.ts';
import type { AgentNode, RunView, TurnView } from './run-tree.ts';

export interface TurnComparison {
  turn: number;
  a: TurnView | null;
  b: TurnView | null;
  sameResponse: boolean;
  sameCode: boolean;
  sameOutput: boolean;
}

export interface AgentComparison {
  id: string;
  /** Which run has this agent. */
  in: 'both' | 'a' | 'b';
  a: AgentNode | null;
  b: AgentNode | null;
  turns: TurnComparison[];
  sameAnswer: boolean;
}

export interface RunComparison {
  /** Agents in tree order: depth first, children in id order, agents of either run. */
  agents: AgentComparison[];
  /** The first turn where the two runs part (depth-first order), or null when none differs. */
  firstDifference: { agentId: string; turn: number | null } | null;
  answers: { shared: string[]; onlyA: string[]; onlyB: string[] };
  totals: {
    a: {
      agents: number;
      turns: number;
      tokens: number;
      costUsd: number | null;
      durationMs: number | null;
    };
    b: {
      agents: number;
      turns: number;
      tokens: number;
      costUsd: number | null;
      durationMs: number | null;
    };
  };
}

const codeOf = (turn: TurnView | null) => turn?.code.map((block) => block.code).join('\n') ?? null;
const outputOf = (turn: TurnView | null) =>
  turn?.code.map((block) => `${block.stdout}\u0000${block.stderr}`).join('\n') ?? null;

/** A final answer as a list of spans (a list's string items, else the answer as one string). */
export function answerSpanList(answer: unknown): string[] {
  if (answer === null || answer === undefined) return [];
  if (Array.isArray(answer)) return answer.map((item) => answerText(item));
  return [answerText(answer)];
}

function byPath(x: string, y: string): number {
  const a = x.split('.').map(Number);
  const b = y.split('.').map(Number);
  for (let index = 0; index < Math.min(a.length, b.length); index++) {
    const diff = (a[index] ?? 0) - (b[index] ?? 0);
    if (diff !== 0) return diff;
  }
  return a.length - b.length;
}

function totals(view: RunView): RunComparison['totals']['a'] {
  let turns = 0;
  for (const agent of view.agents.values()) turns += agent.turns.length;
  return {
    agents: view.agents.size,
    turns,
    tokens: view.inputTokens + view.outputTokens,
    costUsd: view.costUsd,
    durationMs:
      view.startedAt !== null && view.finishedAt !== null ? view.finishedAt - view.startedAt : null,
  };
}

export function compareRuns(a: RunView, b: RunView): RunComparison {
  const ids = [...new Set([...a.agents.keys(), ...b.agents.keys()])].sort(byPath);
  let firstDifference: RunComparison['firstDifference'] = null;
  const agents = ids.map((id): AgentComparison => {
    const left = a.agents.get(id) ?? null;
    const right = b.agents.get(id) ?? null;
    const count = Math.max(left?.turns.length ?? 0, right?.turns.length ?? 0);
    const turns = Array.from({ length: count }, (_, turn): TurnComparison => {
      const x = left?.turns[turn] ?? null;
      const y = right?.turns[turn] ?? null;
      const compared = {
        turn,
        a: x,
        b: y,
        sameResponse: x !== null && y !== null && x.response === y.response,
        sameCode: codeOf(x) === codeOf(y),
        sameOutput: outputOf(x) === outputOf(y),
      };
      if (!firstDifference && !(compared.sameResponse && compared.sameCode && compared.sameOutput))
        firstDifference = { agentId: id, turn };
      return compared;
    });
    const sameAnswer =
      left !== null &&
      right !== null &&
      left.state === right.state &&
      JSON.stringify(left.answer) === JSON.stringify(right.answer);
    if (!firstDifference && (left === null || right === null))
      firstDifference = { agentId: id, turn: null };
    return {
      id,
      in: left && right ? 'both' : left ? 'a' : 'b',
      a: left,
      b: right,
      turns,
      sameAnswer,
    };
  });
  const spansA = answerSpanList(a.answer);
  const spansB = answerSpanList(b.answer);
  return {
    agents,
    firstDifference,
    answers: {
      shared: spansA.filter((span) => spansB.includes(span)),
      onlyA: spansA.filter((span) => !spansB.includes(span)),
      onlyB: spansB.filter((span) => !spansA.includes(span)),
    },
    totals: { a: totals(a), b: totals(b) },
  };
}
