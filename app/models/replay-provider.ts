// `replay:RUN`: gives back a stored run's model responses exactly, looked up by agent and turn.
// The lookup is injected (the composition root backs it with the run store), so this file knows
// nothing of how runs are stored. A response the run never had is an error, never a guess.
import { cannedCompletion } from './canned-answer.ts';
import { ReplayEntryMissingError } from './errors.ts';
import type { Completion, CompletionRequest, Provider } from './provider.ts';

/** The stored response of `agentId` at `turn`, or undefined when the run has none. */
export type ReplayLookup = (
  agentId: string,
  turn: number,
) => string | undefined | Promise<string | undefined>;

export class ReplayProvider implements Provider {
  readonly spec: string;
  private readonly run: string;
  private readonly lookup: ReplayLookup;

  constructor(run: string, lookup: ReplayLookup) {
    this.run = run;
    this.spec = `replay:${run}`;
    this.lookup = lookup;
  }

  async complete(request: CompletionRequest): Promise<Completion> {
    const text = await this.lookup(request.agentId, request.turn);
    if (text === undefined)
      throw new ReplayEntryMissingError(this.run, request.agentId, request.turn);
    return cannedCompletion(this.spec, 'replay', text, request);
  }
}
