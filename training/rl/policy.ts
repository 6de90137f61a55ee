// What the trainer needs of a local model: token ids for a turn, per-token log-probabilities with
// and without the adapter, a backward pass from d(loss)/d(logp), an optimizer step and checkpoints.
// training/engine's LoRA model implements it; tests use a small table policy with exact gradients.
import type { ChatMessage } from './trajectory.ts';

/** One step-wise sample as token ids: the prompt it saw and the action tokens it produced. */
export interface TokenizedTurn {
  prompt: readonly number[];
  response: readonly number[];
}

export interface ScoredTurns {
  /** log pi(response[t] | prompt, response[<t]) for every sample, in order. */
  logp: Float64Array[];
  /** Mean per-token entropy of the policy over the response positions (NaN when unknown). */
  entropy: number;
  /** Adds d(loss)/d(parameters) given d(loss)/d(logp); only after `score(..., { grad: true })`. */
  backward(gradLogp: readonly Float64Array[]): Promise<void>;
}

export interface OptimizerStep {
  learningRate: number;
  maxGradNorm: number;
}

export interface TrainablePolicy {
  /** `ended`: the reply stopped by itself, so its end token is one of the actions (default true). */
  encodeTurn(messages: readonly ChatMessage[], response: string, ended?: boolean): TokenizedTurn;
  /**
   * `reference`: the base model with the adapter switched off (the KL anchor). `temperature`: the
   * one the turns were sampled at; log-probs (and their gradient) are of softmax(logits /
   * temperature), the policy that drew them (default 1).
   */
  score(
    turns: readonly TokenizedTurn[],
    options: { reference: boolean; grad: boolean; temperature?: number },
  ): Promise<ScoredTurns>;
  /** Clips the accumulated gradient, applies it, clears it; returns the norm before clipping. */
  step(options: OptimizerStep): Promise<{ gradNorm: number }>;
  saveCheckpoint(dir: string): Promise<void>;
  loadCheckpoint(dir: string): Promise<void>;
}
