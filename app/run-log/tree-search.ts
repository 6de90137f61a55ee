// Searching a run's tree (the `/` key): every prompt, message, response, code block, output and
// answer, case-insensitively, with a snippet around each hit. Pure, over the fold.
import { answerText } from './agent-tree.ts';
import type { RunView } from './run-tree.ts';

export type TreeSearchField =
  'prompt' | 'message' | 'response' | 'code' | 'stdout' | 'stderr' | 'child' | 'answer';

export interface TreeSearchHit {
  agentId: string;
  /** null for the agent's prompt and answer, which belong to no turn. */
  turn: number | null;
  field: TreeSearchField;
  /** The code block, for code, stdout and stderr hits. */
  block: number | null;
  /** Where the match starts in that field's text. */
  offset: number;
  snippet: string;
}

function* occurrences(text: string, needle: string): Generator<number> {
  const haystack = text.toLowerCase();
  for (
    let at = haystack.indexOf(needle);
    at >= 0;
    at = haystack.indexOf(needle, at + needle.length)
  )
    yield at;
}

function snippetAt(text: string, offset: number, length: number, context = 40): string {
  const start = Math.max(0, offset - context);
  const end = Math.min(text.length, offset + length + context);
  return `${start > 0 ? '…' : ''}${text.slice(start, end).replace(/\s+/g, ' ')}${end < text.length ? '…' : ''}`;
}

/** Hits in tree order (agents depth-first, then turn, then field); at most `limit` (default 500). */
export function searchTree(
  view: RunView,
  query: string,
  options: { limit?: number } = {},
): TreeSearchHit[] {
  const needle = query.trim().toLowerCase();
  const limit = options.limit ?? 500;
  const hits: TreeSearchHit[] = [];
  if (needle === '') return hits;
  const scan = (
    agentId: string,
    turn: number | null,
    field: TreeSearchField,
    text: string,
    block: number | null = null,
  ) => {
    for (const offset of occurrences(text, needle)) {
      if (hits.length >= limit) return;
      hits.push({
        agentId,
        turn,
        field,
        block,
        offset,
        snippet: snippetAt(text, offset, needle.length),
      });
    }
  };
  const visit = (id: string) => {
    const agent = view.agents.get(id);
    if (!agent || hits.length >= limit) return;
    scan(id, null, 'prompt', agent.prompt);
    for (const turn of agent.turns) {
      for (const message of turn.messages) scan(id, turn.turn, 'message', message.content);
      scan(id, turn.turn, 'response', turn.response);
      for (const code of turn.code) {
        scan(id, turn.turn, 'code', code.code, code.block);
        scan(id, turn.turn, 'stdout', code.stdout, code.block);
        scan(id, turn.turn, 'stderr', code.stderr, code.block);
      }
      for (const child of turn.children) scan(id, turn.turn, 'child', child.prompt);
    }
    if (agent.state === 'done') scan(id, null, 'answer', answerText(agent.answer));
    for (const child of agent.children) visit(child);
  };
  for (const agent of view.agents.values()) if (agent.parentId === null) visit(agent.id);
  return hits;
}
