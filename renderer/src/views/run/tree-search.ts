// `/` search over a run: the text of agents' prompts, the prompts sent each turn, responses, code and
// REPL output. Case-insensitive substring; every hit names its agent and turn so the view can go there.
import type { RunView } from '../../../../app/api/index.ts';

export type HitField = 'task' | 'prompt' | 'response' | 'code' | 'output';

export interface SearchHit {
  agentId: string;
  turn: number | undefined;
  field: HitField;
}

export interface SearchResult {
  hits: SearchHit[];
  agents: Set<string>;
}

export const maxHits = 500;

export function searchRun(view: RunView, order: readonly string[], query: string): SearchResult {
  const needle = query.trim().toLowerCase();
  const hits: SearchHit[] = [];
  const agents = new Set<string>();
  if (needle === '') return { hits, agents };
  const has = (text: string) => text.toLowerCase().includes(needle);
  const add = (hit: SearchHit) => {
    agents.add(hit.agentId);
    if (hits.length < maxHits) hits.push(hit);
  };
  for (const agentId of order) {
    const agent = view.agents.get(agentId);
    if (!agent) continue;
    if (has(agent.prompt)) add({ agentId, turn: undefined, field: 'task' });
    for (const turn of agent.turns) {
      const at = { agentId, turn: turn.turn };
      if (turn.messages.some((message) => has(message.content))) add({ ...at, field: 'prompt' });
      if (has(turn.response)) add({ ...at, field: 'response' });
      if (turn.code.some((block) => has(block.code))) add({ ...at, field: 'code' });
      if (
        turn.code.some(
          (block) => has(block.stdout) || has(block.stderr) || has(block.error?.message ?? ''),
        )
      )
        add({ ...at, field: 'output' });
    }
  }
  return { hits, agents };
}
