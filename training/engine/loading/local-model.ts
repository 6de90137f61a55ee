// Loads what `local:PATH` and `rlm-studio generate --model PATH` name: a llama2.c `.bin` (its
// tokenizer beside it or given) or a Hugging Face folder. Returns the weights, the tokenizer and
// how chat messages become a prompt.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { MissingModelFileError } from '../errors.ts';
import { readLlama2cCheckpoint } from './llama2c-checkpoint.ts';
import { Llama2cTokenizer } from './llama2c-tokenizer.ts';
import type { Tokenizer } from './tokenizer.ts';
import type { WeightStore } from './bf16.ts';
import type { DecoderModel } from './weights.ts';

export interface ChatTurn {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface LocalModel {
  name: string;
  source: 'llama2c' | 'huggingface';
  model: DecoderModel;
  tokenizer: Tokenizer;
  /** The prompt for a conversation, ending where the assistant's reply begins. */
  formatChat(messages: readonly ChatTurn[]): string;
  /** Whether `formatChat`'s text already holds the BOS (a chat template writes it). */
  chatHasBos: boolean;
  /** Notes for the user (dtype fallbacks and the like). */
  notes: string[];
}

export interface LoadOptions {
  /** llama2.c: the tokenizer.bin; default: tokenizer.bin or the one tok*.bin beside the model. */
  tokenizer?: string | undefined;
  /** Hugging Face folders: where the linears are loaded (a CPU decoder's arenas). */
  store?: WeightStore | undefined;
}

/** Plain text rendering for models without a chat template (llama2.c's). */
export function plainChat(messages: readonly ChatTurn[]): string {
  return `${messages.map((m) => `${m.role}: ${m.content}`).join('\n\n')}\n\nassistant:`;
}

export function loadLocalModel(path: string, options: LoadOptions = {}): Promise<LocalModel> {
  if (existsSync(path) && statSync(path).isDirectory()) {
    return import('./hf-model.ts').then((hf) =>
      hf.loadHuggingFaceModel(path, options.store ? { store: options.store } : {}),
    );
  }
  if (!existsSync(path)) {
    throw new MissingModelFileError(dirname(path), basename(path), 'check the path');
  }
  const model = readLlama2cCheckpoint(path);
  const tokenizerFile = options.tokenizer ?? findLlama2cTokenizer(path);
  const tokenizer = Llama2cTokenizer.fromFile(tokenizerFile, model.config.vocabSize);
  return Promise.resolve({
    name: basename(path),
    source: 'llama2c',
    model,
    tokenizer,
    formatChat: plainChat,
    chatHasBos: false,
    notes: [],
  });
}

function findLlama2cTokenizer(checkpoint: string): string {
  const dir = dirname(checkpoint);
  const standard = join(dir, 'tokenizer.bin');
  if (existsSync(standard)) return standard;
  const candidates = readdirSync(dir).filter((f) => /^tok.*\.bin$/.test(f));
  const [only] = candidates;
  if (candidates.length === 1 && only !== undefined) return join(dir, only);
  throw new MissingModelFileError(
    dir,
    'tokenizer.bin',
    candidates.length > 1
      ? `several tok*.bin files are there (${candidates.join(', ')}); name one with --tokenizer`
      : 'give the tokenizer with --tokenizer',
  );
}
