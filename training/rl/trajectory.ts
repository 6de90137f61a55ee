// From a stored run's event log to what training needs: the agent tree with each turn's action
// tokens (for advantages), the step-wise samples (the exact prompt of a turn -> that turn's response),
// and the cold-start SFT filter of RLM-SPEC section 5. Pure functions of the log.
import type { RunEvent, RunEventOf } from '../../app/api/index.ts';
import type { RolloutNode } from './advantages.ts';

export type ChatMessage = RunEventOf<'turn.started'>['messages'][number];

/** One turn of one agent as a training example: the prompt it was sent and the action it took. */
export interface StepSample {
  agentId: string;
  turn: number;
  messages: ChatMessage[];
  response: string;
  outputTokens: number;
  /** False only for a reply cut at the token limit (finish reason 'length'): it sampled no end token. */
  ended: boolean;
}

export class TrajectoryError extends Error {
  override name = 'TrajectoryError';
}

/** Every completed turn of every agent, in the order the turns finished. */
export function stepSamples(events: readonly RunEvent[]): StepSample[] {
  const prompts = new Map<string, ChatMessage[]>();
  const samples: StepSample[] = [];
  for (const event of events) {
    if (event.kind === 'turn.started') {
      prompts.set(`${event.agentId}#${event.turn}`, event.messages);
    } else if (event.kind === 'model.done') {
      const messages = prompts.get(`${event.agentId}#${event.turn}`);
      // llm_query calls report model.done without a turn.started of their own: they are not
      // agent turns and are not trained.
      if (!messages) continue;
      samples.push({
        agentId: event.agentId,
        turn: event.turn,
        messages,
        response: event.text,
        outputTokens: event.usage.outputTokens,
        // Imported logs may name other reasons (a stop string, 'unknown'): only a known cut counts.
        ended: event.finishReason !== 'length',
      });
    }
  }
  return samples;
}

/** The run's agent tree with each turn's action-token count (`count` defaults to the usage figures). */
export function rolloutTree(
  events: readonly RunEvent[],
  count: (sample: StepSample) => number = (s) => s.outputTokens,
): RolloutNode {
  interface Building {
    agentId: string;
    turnTokens: number[];
    children: Building[];
  }
  const agents = new Map<string, Building>();
  let root: Building | undefined;
  for (const event of events) {
    if (event.kind !== 'agent.spawned') continue;
    const agent: Building = { agentId: event.agentId, turnTokens: [], children: [] };
    agents.set(event.agentId, agent);
    if (event.parentId === null) {
      root = agent;
    } else {
      const parent = agents.get(event.parentId);
      if (!parent) {
        throw new TrajectoryError(
          `agent ${event.agentId} names a parent ${event.parentId} never spawned`,
        );
      }
      parent.children.push(agent);
    }
  }
  if (!root) throw new TrajectoryError('the run has no root agent: it never started');
  for (const sample of stepSamples(events)) {
    const agent = agents.get(sample.agentId);
    if (agent) agent.turnTokens[sample.turn] = count(sample);
  }
  const seal = (agent: Building): RolloutNode => ({
    agentId: agent.agentId,
    // A turn that never finished leaves a hole: it has no action tokens to train.
    turnTokens: Array.from(agent.turnTokens, (t: number | undefined) => t ?? 0),
    children: agent.children.map(seal),
  });
  return seal(root);
}

/** Why a stored run may not serve as an SFT teacher trace, or null when it may. */
export function sftRejection(events: readonly RunEvent[], spanF1: number): string | null {
  const finished = events.findLast((e) => e.kind === 'run.finished');
  if (finished?.status !== 'done') {
    return `the run did not finish (${finished?.status ?? 'no run.finished event'})`;
  }
  for (const event of events) {
    if (event.kind === 'repl.output' && event.error) {
      return `REPL error in agent ${event.agentId} turn ${event.turn}: ${event.error.type}`;
    }
  }
  if (!(spanF1 > 0)) return `span F1 is ${spanF1}, not above 0`;
  return null;
}
