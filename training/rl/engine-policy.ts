// The trainer's policy on a real local model (training/engine): a LoRA Trainer for the policy and a
// second one whose adapters stay at their zero init for the reference (base model, adapter off).
// Turns are the model's own chat rendering of the prompt followed by the response tokens; only the
// response positions carry log-probabilities and gradient.
import {
  loadAdapter,
  saveAdapter,
  Trainer,
  type LocalModel,
  type LoraArrays,
  type LoraConfig,
} from '../engine/index.ts';
import type { ScoredTurns, TokenizedTurn, TrainablePolicy } from './policy.ts';
import type { ChatMessage } from './trajectory.ts';

export interface EnginePolicyOptions {
  lora: LoraConfig;
  learningRate: number;
  maxGradNorm?: number;
  seed?: number;
}

export class EnginePolicy implements TrainablePolicy {
  readonly #local: LocalModel;
  readonly #lora: LoraConfig;
  readonly #policy: Trainer;
  readonly #reference: Trainer;
  /** Backward passes waiting for step(): applied there, so their sum (not mean) is the gradient. */
  #pending: { sequences: number[][]; weights: number[][] }[] = [];

  constructor(local: LocalModel, options: EnginePolicyOptions) {
    this.#local = local;
    this.#lora = options.lora;
    const trainerOptions = {
      lora: options.lora,
      loraInit: { seed: options.seed ?? 0 },
      schedule: { peak: options.learningRate, kind: 'constant' as const },
      maxGradNorm: options.maxGradNorm ?? 1,
    };
    this.#policy = new Trainer(local.model, trainerOptions);
    // LoRA's B starts at zero, so untrained adapters leave the base model as it is.
    this.#reference = new Trainer(local.model, trainerOptions);
  }

  encodeTurn(messages: readonly ChatMessage[], response: string): TokenizedTurn {
    const { tokenizer } = this.#local;
    const promptText = this.#local.formatChat(messages);
    const prompt = tokenizer.encode(promptText, { addBos: !this.#local.chatHasBos });
    // The response is tokenised after the prompt's text so merges at the seam match generation.
    const whole = tokenizer.encode(promptText + response, { addBos: !this.#local.chatHasBos });
    const shared = commonPrefix(prompt, whole);
    const context = this.#local.model.config.maxSeqLen;
    const answer = whole.slice(shared).slice(0, Math.max(1, context - 1));
    // The model saw a prompt longer than its context only by its end (as the local provider cuts
    // it): score the turn on that same window.
    return {
      prompt: keepEnd(whole.slice(0, shared), context - answer.length, tokenizer.bos),
      response: answer,
    };
  }

  async score(
    turns: readonly TokenizedTurn[],
    options: { reference: boolean; grad: boolean },
  ): Promise<ScoredTurns> {
    const sequences = turns.map((t) => [...t.prompt, ...t.response]);
    const trainer = options.reference ? this.#reference : this.#policy;
    const all = await trainer.logProbs(sequences);
    // logProbs gives log p(seq[t+1] | seq[<=t]): the response tokens are the last ones.
    const logp = all.map((values, i) =>
      values.slice(values.length - (turns[i]?.response.length ?? 0)),
    );
    const backward = (gradLogp: readonly Float64Array[]): Promise<void> => {
      if (!options.grad || options.reference) {
        return Promise.reject(new Error('this scoring was made without gradient'));
      }
      this.#pending.push({
        sequences,
        weights: turns.map((turn, i) => {
          const row = new Array<number>(turn.prompt.length + turn.response.length - 1).fill(0);
          const grad = gradLogp[i] ?? new Float64Array();
          for (let t = 0; t < turn.response.length; t++) {
            row[turn.prompt.length - 1 + t] = grad[t] ?? 0;
          }
          return row;
        }),
      });
      return Promise.resolve();
    };
    return { logp, entropy: Number.NaN, backward };
  }

  async step(): Promise<{ gradNorm: number }> {
    const pending = this.#pending;
    this.#pending = [];
    if (pending.length === 0) return { gradNorm: 0 };
    // The engine averages its micro-batches; the loss is already a weighted sum, so scale back up.
    for (const { sequences, weights } of pending) {
      await this.#policy.accumulate(
        sequences,
        weights.map((row) => row.map((w) => w * pending.length)),
      );
    }
    const { gradNorm } = await this.#policy.step();
    return { gradNorm };
  }

  /** The adapters as they are now (to merge into a model for sampling). */
  adapters(): Promise<LoraArrays> {
    return this.#policy.adapterArrays();
  }

  get lora(): LoraConfig {
    return this.#lora;
  }

  async saveCheckpoint(dir: string): Promise<void> {
    saveAdapter(dir, this.#local.model.config, this.#lora, await this.#policy.adapterArrays());
    return Promise.resolve();
  }

  loadCheckpoint(dir: string): Promise<void> {
    const { arrays } = loadAdapter(dir, this.#local.model.config);
    this.#policy.setAdapterArrays(arrays);
    return Promise.resolve();
  }

  dispose(): void {
    this.#policy.dispose();
    this.#reference.dispose();
  }
}

function keepEnd(ids: number[], room: number, bos: number | null): number[] {
  if (ids.length <= room) return ids;
  const hasBos = bos !== null && ids[0] === bos;
  const tail = ids.slice(ids.length - (hasBos ? room - 1 : room));
  return hasBos ? [bos, ...tail] : tail;
}

function commonPrefix(a: readonly number[], b: readonly number[]): number {
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n++;
  return n;
}
