// `local:PATH` as an app/models Provider: requests that arrive while the decoder is busy wait and
// are decoded together, one KV cache slot each. Long prompts keep their end (the turn prompt and
// the latest history matter most to an RLM agent) so they fit the model's context.
import type { Completion, CompletionRequest, Provider } from '../../../app/models/index.ts';
import type { Decoder } from './decoder.ts';
import { generateBatch, type Generation, GenerationAbortedError } from './generate.ts';
import type { ChatTurn, LocalModel } from '../loading/local-model.ts';

export interface LocalProviderOptions {
  spec: string;
  local: LocalModel;
  decoder: Decoder;
  /** Reply length when a request names none (default 256). */
  defaultMaxTokens?: number;
  /** Nucleus mass when sampling (default the sampler's 0.9); 1 samples the model's distribution. */
  topP?: number;
}

interface Pending {
  request: CompletionRequest;
  started: number;
  resolve: (completion: Completion) => void;
  reject: (error: unknown) => void;
}

export class LocalProvider implements Provider {
  readonly spec: string;
  readonly #local: LocalModel;
  readonly #decoder: Decoder;
  readonly #defaultMaxTokens: number;
  readonly #topP: number | undefined;
  readonly #queue: Pending[] = [];
  #busy = false;

  constructor(options: LocalProviderOptions) {
    this.spec = options.spec;
    this.#local = options.local;
    this.#decoder = options.decoder;
    this.#defaultMaxTokens = options.defaultMaxTokens ?? 256;
    this.#topP = options.topP;
  }

  complete(request: CompletionRequest): Promise<Completion> {
    if (request.signal?.aborted) return Promise.reject(new GenerationAbortedError());
    return new Promise<Completion>((resolve, reject) => {
      this.#queue.push({ request, started: Date.now(), resolve, reject });
      void this.#drain();
    });
  }

  async #drain(): Promise<void> {
    if (this.#busy) return;
    this.#busy = true;
    try {
      while (this.#queue.length > 0) {
        const batch = this.#queue.splice(0, this.#decoder.maxBatch);
        try {
          const results = await this.#decode(batch.map((p) => p.request));
          batch.forEach((pending, i) => {
            this.#settle(pending, results[i]);
          });
        } catch (error) {
          for (const pending of batch) pending.reject(error);
        }
      }
    } finally {
      this.#busy = false;
    }
  }

  #decode(requests: CompletionRequest[]): Promise<Generation[]> {
    const context = this.#decoder.maxSeqLen;
    return generateBatch(
      this.#decoder,
      this.#local.tokenizer,
      requests.map((request) => {
        const maxNew = replyBudget(request.maxTokens ?? this.#defaultMaxTokens, context);
        return {
          prompt: promptWindow(this.#local, request.messages, context, maxNew),
          options: {
            maxNewTokens: maxNew,
            temperature: request.temperature ?? 0,
            ...(this.#topP !== undefined ? { topP: this.#topP } : {}),
            ...(request.seed !== undefined ? { seed: request.seed } : {}),
            ...(request.stop ? { stop: request.stop } : {}),
            ...(request.signal ? { signal: request.signal } : {}),
            ...(request.onDelta
              ? { onText: (_seq: number, chunk: string) => request.onDelta?.(chunk) }
              : {}),
          },
        };
      }),
    );
  }

  #settle(pending: Pending, result: Generation | undefined): void {
    if (!result || result.finishReason === 'aborted') {
      pending.reject(new GenerationAbortedError());
      return;
    }
    pending.resolve({
      text: openThinking(this.#local.formatChat(pending.request.messages)) + result.text,
      usage: { inputTokens: result.promptTokens.length, outputTokens: result.tokens.length },
      costUsd: 0,
      model: this.#local.name,
      finishReason: result.finishReason === 'length' ? 'length' : 'stop',
      latencyMs: Date.now() - pending.started,
    });
  }
}

/**
 * A chat template that opens the reply inside a thinking block (Qwen3.5's writes `<think>\n` after
 * the assistant header) leaves the reply without its opening tag; the completion gets it back, so
 * the text reads as the model wrote it and the RLM loop can tell reasoning from code.
 */
export function openThinking(prompt: string): string {
  const open = prompt.lastIndexOf('<think>');
  return open >= 0 && !prompt.slice(open).includes('</think>') ? prompt.slice(open) : '';
}

/** The most tokens a reply may have in a context of `context` tokens: at most half of it. */
export function replyBudget(maxTokens: number, context: number): number {
  return Math.max(1, Math.min(maxTokens, Math.floor(context / 2)));
}

/**
 * The prompt's tokens as the decoder is fed them: the chat rendering, cut to its last
 * `context - maxNew` tokens (the BOS kept in front) so the reply fits. Training scores turns
 * through the same window, so it sees what sampling saw.
 */
export function promptWindow(
  local: Pick<LocalModel, 'tokenizer' | 'formatChat' | 'chatHasBos'>,
  messages: readonly ChatTurn[],
  context: number,
  maxNew: number,
): number[] {
  const { tokenizer } = local;
  const ids = tokenizer.encode(local.formatChat(messages), { addBos: !local.chatHasBos });
  return keepEnd(ids, context - maxNew, tokenizer.bos);
}

/** The last `room` tokens of `ids`, the BOS kept in front when it had one. */
function keepEnd(ids: number[], room: number, bos: number | null): number[] {
  if (ids.length <= room) return ids;
  const hasBos = bos !== null && ids[0] === bos;
  const tail = ids.slice(ids.length - (hasBos ? room - 1 : room));
  return hasBos ? [bos, ...tail] : tail;
}
