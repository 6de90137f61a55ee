// Test support: a stand-in for the RLM loop that records every call the REPL's built-ins make and
// answers from a script, optionally after a delay. Not used by production code.
import type { ReplCallbacks, ReplValue } from './types.ts';

export interface RecordedCall {
  op: keyof ReplCallbacks;
  agentId: string;
  args: unknown[];
}

type Answer = (
  agentId: string,
  prompt: string,
  context: ReplValue,
) => ReplValue | Promise<ReplValue>;

export class RecordingLoop implements ReplCallbacks {
  readonly calls: RecordedCall[] = [];
  delayMs = 0;
  answer: Answer = (agentId, prompt) => `answer from ${agentId} to ${prompt}`;
  /** When set, the whole batched call rejects with this message. */
  failBatches: string | null = null;

  async #wait(): Promise<void> {
    if (this.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.delayMs));
  }

  async rlmQuery(agentId: string, prompt: string, context: ReplValue): Promise<ReplValue> {
    this.calls.push({ op: 'rlmQuery', agentId, args: [prompt, context] });
    await this.#wait();
    return this.answer(agentId, prompt, context);
  }

  async rlmQueryBatched(
    agentId: string,
    prompts: string[],
    contexts: ReplValue[] | null,
  ): Promise<ReplValue[]> {
    this.calls.push({ op: 'rlmQueryBatched', agentId, args: [prompts, contexts] });
    await this.#wait();
    if (this.failBatches !== null) throw new Error(this.failBatches);
    const answers: ReplValue[] = [];
    for (const [i, prompt] of prompts.entries()) {
      answers.push(await this.answer(agentId, prompt, contexts?.[i] ?? null));
    }
    return answers;
  }

  async llmQuery(agentId: string, prompt: string): Promise<string> {
    this.calls.push({ op: 'llmQuery', agentId, args: [prompt] });
    await this.#wait();
    return `llm: ${prompt}`;
  }

  async llmQueryBatched(agentId: string, prompts: string[]): Promise<string[]> {
    this.calls.push({ op: 'llmQueryBatched', agentId, args: [prompts] });
    await this.#wait();
    if (this.failBatches !== null) throw new Error(this.failBatches);
    return prompts.map((prompt) => `llm: ${prompt}`);
  }
}

/** A small paper set in the shape the REPL sees (`### PAPER:` header, abstract, body). */
export const samplePapers: Readonly<Record<string, string>> = {
  p1:
    '### PAPER: Attention Is Enough\n\nWe study transformers for evidence selection. Results improve recall.\n\n' +
    '1 Introduction\nLong documents are hard. Transformers read them in pieces. We evaluate on QASPER.\n' +
    '2 Method\nOur method splits papers into passages. Each passage is scored.\n3 Results\nRecall rises to 0.81.',
  p2:
    '### PAPER: Recursive Models\n\nA model that calls itself on sub-problems.\n\n' +
    'Body of the second paper. It discusses recursion depth and budgets. Transformers appear once.',
};
