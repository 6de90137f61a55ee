// A local model with LoRA adapters as the policy the RL trainer drives (training/rl's
// TrainablePolicy, matched structurally so the engine does not depend on rl): turns encoded with
// the model's chat format, per-token log-probs of responses with the adapters on or off (the KL
// reference), backward from d(loss)/d(logp), optimizer steps, checkpoints of adapters and
// optimizer moments.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadAdapter, saveAdapter } from './adapter-io.ts';
import { EngineError, MissingModelFileError } from '../errors.ts';
import type { ChatTurn, LocalModel } from '../loading/local-model.ts';
import { promptWindow, replyBudget } from '../decoding/local-provider.ts';
import type { LoraConfig, LoraInitOptions } from './lora.ts';
import {
  readSafetensorsHeader,
  readTensor,
  serializeSafetensors,
  type TensorToWrite,
} from '../loading/safetensors.ts';
import type { Tokenizer } from '../loading/tokenizer.ts';
import { Trainer } from './trainer.ts';

export interface PolicyTurn {
  prompt: readonly number[];
  response: readonly number[];
}

export interface PolicyScores {
  logp: Float64Array[];
  entropy: number;
  backward(gradLogp: readonly Float64Array[]): Promise<void>;
}

export interface LoraPolicyOptions {
  lora: LoraConfig;
  loraInit?: LoraInitOptions;
  /** Sequences longer than this keep their end (default: the model's context). */
  maxSeqLen?: number;
  /**
   * The sampler's context and reply budget: prompts are cut to the window its LocalProvider feeds
   * the decoder, so a rollout's turn is scored on the tokens it was sampled from.
   */
  window?: { context: number; maxNewTokens: number };
}

export class LoraPolicy {
  readonly trainer: Trainer;
  readonly #local: LocalModel;
  readonly #lora: LoraConfig;
  readonly #maxSeqLen: number;
  readonly #window: LoraPolicyOptions['window'];

  constructor(local: LocalModel, options: LoraPolicyOptions) {
    this.#local = local;
    this.#lora = options.lora;
    this.#maxSeqLen = Math.min(
      options.maxSeqLen ?? local.model.config.maxSeqLen,
      local.model.config.maxSeqLen,
    );
    this.#window = options.window;
    this.trainer = new Trainer(local.model, {
      lora: options.lora,
      ...(options.loraInit ? { loraInit: options.loraInit } : {}),
      schedule: { peak: 0 },
      maxGradNorm: Infinity,
      padTo: 32,
    });
  }

  /**
   * The prompt's tokens as the model sees them (cut to the sampler's window when one is set), and
   * the response's as the model writes them after that prompt, with the end token after it when
   * the reply `ended` by itself (a reply cut at the token limit never sampled one).
   */
  encodeTurn(messages: readonly ChatTurn[], response: string, ended = true): PolicyTurn {
    const local = this.#local;
    const { tokenizer } = local;
    const text = local.formatChat(messages);
    const addBos = !local.chatHasBos;
    const full = tokenizer.encode(text, { addBos });
    const reply = replyTokens(tokenizer, text, full, response, addBos);
    const window = this.#window;
    const prompt = window
      ? promptWindow(
          local,
          messages,
          window.context,
          replyBudget(window.maxNewTokens, window.context),
        )
      : full;
    const end = tokenizer.eos[0];
    return { prompt, response: end === undefined || !ended ? reply : [...reply, end] };
  }

  #sequences(turns: readonly PolicyTurn[]): { sequences: number[][]; starts: number[] } {
    const sequences: number[][] = [];
    const starts: number[] = [];
    for (const turn of turns) {
      if (turn.response.length === 0) throw new EngineError('a turn has an empty response');
      let prompt = [...turn.prompt];
      const room = this.#maxSeqLen - turn.response.length;
      if (room < 1)
        throw new EngineError(
          `a response of ${turn.response.length} tokens does not fit the context`,
        );
      if (prompt.length > room) prompt = prompt.slice(prompt.length - room);
      if (prompt.length === 0) throw new EngineError('a turn needs at least one prompt token');
      sequences.push([...prompt, ...turn.response]);
      // logp[t] scores token t + 1: the response starts at logp index prompt.length - 1.
      starts.push(prompt.length - 1);
    }
    return { sequences, starts };
  }

  /**
   * Log-probs of the turns' responses (and their gradient, with `grad`); `temperature`: of the
   * distribution the turns were sampled from, softmax(logits / temperature) (default 1).
   */
  async score(
    turns: readonly PolicyTurn[],
    options: { reference: boolean; grad: boolean; temperature?: number },
  ): Promise<PolicyScores> {
    const { sequences, starts } = this.#sequences(turns);
    const scoring = options.temperature === undefined ? {} : { temperature: options.temperature };
    let entropy = NaN;
    let all: Float64Array[];
    if (options.reference) {
      all = await this.trainer.logProbs(sequences, { adapters: false, ...scoring });
    } else {
      const stats = await this.trainer.logProbsAndEntropy(sequences, scoring);
      all = stats.logp;
      const response = stats.entropy.flatMap((row, i) => Array.from(row.slice(starts[i] ?? 0)));
      entropy = response.reduce((a, b) => a + b, 0) / Math.max(1, response.length);
    }
    const logp = all.map((row, i) => row.slice(starts[i] ?? 0));
    const trainer = this.trainer;
    return {
      logp,
      entropy,
      async backward(gradLogp) {
        if (!options.grad || options.reference) {
          throw new EngineError('backward() needs score(..., { grad: true, reference: false })');
        }
        const weights = sequences.map((seq, i) => {
          const row = new Array<number>(seq.length - 1).fill(0);
          const g = gradLogp[i];
          if (!g || g.length !== logp[i]?.length) {
            throw new EngineError(`gradient ${i} does not match its turn's response length`);
          }
          g.forEach((value, t) => (row[(starts[i] ?? 0) + t] = value));
          return row;
        });
        await trainer.accumulate(sequences, weights, scoring);
      },
    };
  }

  async step(options: {
    learningRate: number;
    maxGradNorm: number;
  }): Promise<{ gradNorm: number }> {
    const { gradNorm } = await this.trainer.step({ ...options, sumMicroBatches: true });
    return { gradNorm };
  }

  async saveCheckpoint(dir: string): Promise<void> {
    saveAdapter(dir, this.#local.model.config, this.#lora, await this.trainer.adapterArrays());
    const state = await this.trainer.optimizerState();
    const tensors: Record<string, TensorToWrite> = {};
    state.m.forEach((m, i) => (tensors[`m.${i}`] = { shape: [m.length], data: m }));
    state.v.forEach((v, i) => (tensors[`v.${i}`] = { shape: [v.length], data: v }));
    writeFileSync(
      join(dir, 'optimizer.safetensors'),
      serializeSafetensors(tensors, { step: String(state.step) }),
    );
  }

  loadCheckpoint(dir: string): Promise<void> {
    const { arrays } = loadAdapter(dir, this.#local.model.config);
    this.trainer.setAdapterArrays(arrays);
    const path = join(dir, 'optimizer.safetensors');
    if (!existsSync(path))
      return Promise.reject(new MissingModelFileError(dir, 'optimizer.safetensors'));
    const file = readSafetensorsHeader(path);
    const count = [...file.tensors.keys()].filter((k) => k.startsWith('m.')).length;
    const read = (prefix: string) =>
      Array.from({ length: count }, (_, i) => readTensor(file, `${prefix}.${i}`));
    this.trainer.setOptimizerState({
      step: Number(file.metadata.step ?? 0),
      m: read('m'),
      v: read('v'),
    });
    return Promise.resolve();
  }

  dispose(): void {
    this.trainer.dispose();
  }
}

/**
 * The reply's tokens as they follow the prompt: the tail of the joint encoding when it extends the
 * prompt's (a tokenizer's dummy-prefix space then sits before the prompt only, as in sampling);
 * otherwise the reply encoded on its own.
 */
function replyTokens(
  tokenizer: Tokenizer,
  promptText: string,
  promptIds: readonly number[],
  response: string,
  addBos: boolean,
): number[] {
  const joint = tokenizer.encode(promptText + response, { addBos });
  const extendsPrompt = promptIds.every((id, i) => joint[i] === id);
  return extendsPrompt
    ? joint.slice(promptIds.length)
    : tokenizer.encode(response, { addBos: false });
}
