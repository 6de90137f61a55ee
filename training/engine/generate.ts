// Generation over a Decoder: prompts prefilled token by token, then sampled, several sequences
// per step (one KV cache slot each). Stops at an end token, a stop string or the length limit;
// streams text as it completes. With `steps`, positions are counted as llama2.c's run.c counts
// them (prompt included), so its reference outputs can be compared byte for byte.
import type { Decoder, DecodeInput } from './decoder.ts';
import { GenerationError } from './errors.ts';
import { Sampler, type SamplingOptions } from './sampler.ts';
import { TextStream, type Tokenizer } from './tokenizer.ts';

export interface GenerateOptions extends SamplingOptions {
  /** Most tokens to sample per sequence (default 256). */
  maxNewTokens?: number;
  /** Total positions, prompt included (run.c's `-n`); when set it bounds the length instead. */
  steps?: number;
  /** Text at which a sequence ends; the stop string itself is not returned. */
  stop?: readonly string[];
  /** Default true. */
  addBos?: boolean;
  /** Called with each piece of new text as it completes, per sequence. */
  onText?: (sequence: number, text: string) => void;
  signal?: AbortSignal;
}

export type FinishReason = 'stop' | 'length';

export interface Generation {
  /** The prompt as decoded from its tokens (what run.c echoes before the completion). */
  echo: string;
  text: string;
  promptTokens: number[];
  tokens: number[];
  finishReason: FinishReason;
}

interface SequenceState {
  index: number;
  prompt: number[];
  pos: number;
  token: number;
  limit: number;
  sampler: Sampler;
  echo: TextStream;
  out: TextStream;
  /** Characters of `out.text` already streamed. */
  streamed: number;
  tokens: number[];
  finish: FinishReason | null;
  text: string;
}

export class GenerationAbortedError extends GenerationError {
  override name = 'GenerationAbortedError';
  constructor() {
    super('generation was cancelled');
  }
}

export async function generate(
  decoder: Decoder,
  tokenizer: Tokenizer,
  prompts: readonly string[],
  options: GenerateOptions = {},
): Promise<Generation[]> {
  if (prompts.length === 0) return [];
  if (prompts.length > decoder.maxBatch) {
    throw new GenerationError(
      `${prompts.length} prompts but the decoder holds ${decoder.maxBatch} sequences; create it with maxBatch >= ${prompts.length}`,
    );
  }
  const stops = (options.stop ?? []).filter((s) => s.length > 0);
  const states = prompts.map((prompt, index) =>
    newState(decoder, tokenizer, prompt, index, options),
  );
  const vocab = decoder.config.vocabSize;
  for (;;) {
    if (options.signal?.aborted) throw new GenerationAbortedError();
    const active = states.filter((s) => s.finish === null);
    if (active.length === 0) break;
    const inputs: DecodeInput[] = active.map((s) => ({
      slot: s.index,
      token: s.token,
      pos: s.pos,
    }));
    const logits = await decoder.step(inputs);
    active.forEach((s, i) => {
      advance(s, logits, i * vocab, vocab, tokenizer, stops, options);
    });
  }
  return states.map((s) => ({
    echo: s.echo.text,
    text: s.text,
    promptTokens: s.prompt,
    tokens: s.tokens,
    finishReason: s.finish ?? 'length',
  }));
}

function newState(
  decoder: Decoder,
  tokenizer: Tokenizer,
  prompt: string,
  index: number,
  options: GenerateOptions,
): SequenceState {
  const tokens = tokenizer.encode(prompt, { addBos: options.addBos ?? true });
  if (tokens.length === 0) {
    throw new GenerationError('the prompt is empty and the model has no BOS token to start from');
  }
  const maxNew = options.maxNewTokens ?? 256;
  let limit = options.steps ?? tokens.length - 1 + maxNew;
  limit = Math.min(limit, decoder.maxSeqLen);
  if (tokens.length > decoder.maxSeqLen) {
    throw new GenerationError(
      `the prompt has ${tokens.length} tokens; this model's context holds ${decoder.maxSeqLen}`,
    );
  }
  return {
    index,
    prompt: tokens,
    pos: 0,
    token: tokens[0] ?? 0,
    limit,
    sampler: new Sampler({
      ...options,
      ...(options.seed !== undefined ? { seed: options.seed + index } : {}),
    }),
    echo: new TextStream(),
    out: new TextStream(),
    streamed: 0,
    tokens: [],
    finish: limit <= 0 ? 'length' : null,
    text: '',
  };
}

function advance(
  s: SequenceState,
  logits: Float32Array,
  offset: number,
  vocab: number,
  tokenizer: Tokenizer,
  stops: readonly string[],
  options: GenerateOptions,
): void {
  const inPrompt = s.pos < s.prompt.length - 1;
  const next = inPrompt ? (s.prompt[s.pos + 1] ?? 0) : s.sampler.sample(logits, offset, vocab);
  s.pos++;
  let cut = -1;
  if (inPrompt) {
    s.echo.push(tokenizer.decodeNext(s.token, next));
    s.token = next;
  } else if (tokenizer.eos.includes(next)) {
    s.finish = 'stop';
  } else {
    s.tokens.push(next);
    s.out.push(tokenizer.decodeNext(s.token, next));
    s.token = next;
    cut = firstStop(s.out.text, stops);
    if (cut >= 0) s.finish = 'stop';
  }
  if (s.finish === null && s.pos >= s.limit) s.finish = 'length';
  if (s.finish !== null) {
    s.echo.end();
    s.out.end();
    s.text = cut >= 0 ? s.out.text.slice(0, cut) : s.out.text;
  }
  stream(s, stops, options);
}

function firstStop(text: string, stops: readonly string[]): number {
  let cut = -1;
  for (const stop of stops) {
    const at = text.indexOf(stop);
    if (at >= 0 && (cut < 0 || at < cut)) cut = at;
  }
  return cut;
}

/** Emits the text that can no longer turn into a stop string. */
function stream(s: SequenceState, stops: readonly string[], options: GenerateOptions): void {
  if (!options.onText) return;
  const text = s.finish === null ? s.out.text : s.text;
  let safe = text.length;
  if (s.finish === null) {
    for (const stop of stops) {
      for (let k = Math.min(stop.length - 1, text.length); k > 0; k--) {
        if (text.endsWith(stop.slice(0, k))) {
          safe = Math.min(safe, text.length - k);
          break;
        }
      }
    }
  }
  if (safe > s.streamed) {
    options.onText(s.index, text.slice(s.streamed, safe));
    s.streamed = safe;
  }
}
