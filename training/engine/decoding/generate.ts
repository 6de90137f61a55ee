// Generation over a Decoder: prompts prefilled token by token, then sampled, several sequences
// per step (one KV cache slot each). Stops at an end token, a stop string or the length limit;
// streams text as it completes. With `steps`, positions are counted as llama2.c's run.c counts
// them (prompt included), so its reference outputs can be compared byte for byte.
import type { Decoder, DecodeInput } from './decoder.ts';
import { GenerationError } from '../errors.ts';
import { Sampler, type SamplingOptions } from './sampler.ts';
import { TextStream, type Tokenizer } from '../loading/tokenizer.ts';

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

export type FinishReason = 'stop' | 'length' | 'aborted';

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
  options: GenerateOptions;
  stops: readonly string[];
}

export class GenerationAbortedError extends GenerationError {
  override name = 'GenerationAbortedError';
  constructor() {
    super('generation was cancelled');
  }
}

/** One sequence of a batch: its prompt (text, or token ids already encoded) and its options. */
export interface SequenceRequest {
  prompt: string | readonly number[];
  options: GenerateOptions;
}

export async function generate(
  decoder: Decoder,
  tokenizer: Tokenizer,
  prompts: readonly string[],
  options: GenerateOptions = {},
): Promise<Generation[]> {
  const results = await generateBatch(
    decoder,
    tokenizer,
    prompts.map((prompt, index) => ({
      prompt,
      options: {
        ...options,
        ...(options.seed !== undefined ? { seed: options.seed + index } : {}),
      },
    })),
  );
  if (results.some((r) => r.finishReason === 'aborted')) throw new GenerationAbortedError();
  return results;
}

/** How long a generation runs before it lets the event loop turn (see generateBatch). */
const yieldEveryMs = 2;

/**
 * Decodes each request in its own KV cache slot, all in the same steps. A request whose signal
 * aborts ends with finishReason 'aborted'; the others go on.
 */
export async function generateBatch(
  decoder: Decoder,
  tokenizer: Tokenizer,
  requests: readonly SequenceRequest[],
): Promise<Generation[]> {
  if (requests.length === 0) return [];
  if (requests.length > decoder.maxBatch) {
    throw new GenerationError(
      `${requests.length} prompts but the decoder holds ${decoder.maxBatch} sequences; create it with maxBatch >= ${requests.length}`,
    );
  }
  const states = requests.map((request, index) => newState(decoder, tokenizer, request, index));
  const vocab = decoder.config.vocabSize;
  let yielded = performance.now();
  for (;;) {
    // The CPU decoder's steps never wait for anything: without a turn of the event loop now and
    // then, a generation would hold it until it ends (the engine's other runs in serve mode; a
    // local-model process's stdin, where a cancel arrives).
    if (performance.now() - yielded >= yieldEveryMs) {
      await new Promise((resolve) => setImmediate(resolve));
      yielded = performance.now();
    }
    for (const s of states) {
      if (s.finish === null && s.options.signal?.aborted) finish(s, 'aborted', -1);
    }
    const active = states.filter((s) => s.finish === null);
    if (active.length === 0) break;
    // A sequence still in its prompt feeds up to maxChunk prompt tokens at once; its last fed
    // position's logits are the ones that matter (they sample the first new token).
    const inputs: DecodeInput[] = [];
    const fed = active.map((s) => {
      const remaining = s.prompt.length - s.pos;
      const count = s.pos < s.prompt.length - 1 ? Math.min(decoder.maxChunk, remaining) : 1;
      for (let k = 0; k < count; k++) {
        const token = k === 0 ? s.token : (s.prompt[s.pos + k] ?? 0);
        const pos = s.pos + k;
        inputs.push({ slot: s.index, token, pos, skipLogits: pos < s.prompt.length - 1 });
      }
      return count;
    });
    const logits = await decoder.step(inputs);
    let row = 0;
    active.forEach((s, i) => {
      for (let k = 0; k < (fed[i] ?? 1) && s.finish === null; k++) {
        advance(s, logits, (row + k) * vocab, vocab, tokenizer);
      }
      row += fed[i] ?? 1;
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
  request: SequenceRequest,
  index: number,
): SequenceState {
  const { options } = request;
  const tokens =
    typeof request.prompt === 'string'
      ? tokenizer.encode(request.prompt, { addBos: options.addBos ?? true })
      : [...request.prompt];
  if (tokens.length === 0) {
    throw new GenerationError('the prompt is empty and the model has no BOS token to start from');
  }
  if (tokens.length > decoder.maxSeqLen) {
    throw new GenerationError(
      `the prompt has ${tokens.length} tokens; this model's context holds ${decoder.maxSeqLen}`,
    );
  }
  const maxNew = options.maxNewTokens ?? 256;
  const limit = Math.min(options.steps ?? tokens.length - 1 + maxNew, decoder.maxSeqLen);
  return {
    index,
    prompt: tokens,
    pos: 0,
    token: tokens[0] ?? 0,
    limit,
    sampler: new Sampler(options),
    echo: new TextStream(),
    out: new TextStream(),
    streamed: 0,
    tokens: [],
    finish: limit <= 0 ? 'length' : null,
    text: '',
    options,
    stops: (options.stop ?? []).filter((stop) => stop.length > 0),
  };
}

function advance(
  s: SequenceState,
  logits: Float32Array,
  offset: number,
  vocab: number,
  tokenizer: Tokenizer,
): void {
  const inPrompt = s.pos < s.prompt.length - 1;
  const next = inPrompt ? (s.prompt[s.pos + 1] ?? 0) : s.sampler.sample(logits, offset, vocab);
  s.pos++;
  if (inPrompt) {
    s.echo.push(tokenizer.decodeNext(s.token, next));
    s.token = next;
  } else if (tokenizer.eos.includes(next)) {
    finish(s, 'stop', -1);
    return;
  } else {
    s.tokens.push(next);
    s.out.push(tokenizer.decodeNext(s.token, next));
    s.token = next;
    const cut = firstStop(s.out.text, s.stops);
    if (cut >= 0) {
      finish(s, 'stop', cut);
      return;
    }
  }
  if (s.pos >= s.limit) finish(s, 'length', -1);
  else stream(s);
}

/** Ends a sequence; `cut` >= 0 is where a stop string begins in its text. */
function finish(s: SequenceState, reason: FinishReason, cut: number): void {
  s.finish = reason;
  s.echo.end();
  s.out.end();
  s.text = cut >= 0 ? s.out.text.slice(0, cut) : s.out.text;
  if (reason !== 'aborted') stream(s);
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
function stream(s: SequenceState): void {
  const { onText } = s.options;
  if (!onText) return;
  const text = s.finish === null ? s.out.text : s.text;
  let safe = text.length;
  if (s.finish === null) {
    for (const stop of s.stops) {
      for (let k = Math.min(stop.length - 1, text.length); k > 0; k--) {
        if (text.endsWith(stop.slice(0, k))) {
          safe = Math.min(safe, text.length - k);
          break;
        }
      }
    }
  }
  if (safe > s.streamed) {
    onText(s.index, text.slice(s.streamed, safe));
    s.streamed = safe;
  }
}
