// A Hugging Face tokenizer folder (tokenizer.json, tokenizer_config.json) as the engine's Tokenizer:
// encoding through @huggingface/transformers from local files only; per-token bytes for streaming
// read from tokenizer.json (byte-level BPE as Qwen and Llama 3, or SentencePiece pieces with byte
// fallback as Llama 2); the chat template rendered with @huggingface/jinja.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Template } from '@huggingface/jinja';
import { MissingModelFileError } from '../errors.ts';
import type { ChatTurn } from './local-model.ts';
import type { Tokenizer } from './tokenizer.ts';

interface TokenizerJson {
  model: { vocab: Record<string, number> | [string, number][] };
  added_tokens?: { id: number; content: string; special: boolean }[];
  decoder?: { type: string; decoders?: { type: string }[] } | null;
}

type TokenizerConfig = Record<string, unknown>;

interface Encoder {
  encode(text: string, options: { add_special_tokens: boolean }): number[];
}

/** GPT-2's byte <-> printable character table of byte-level BPE. */
function byteLevelDecoder(): Map<string, number> {
  const bytes: number[] = [];
  for (let b = 0x21; b <= 0x7e; b++) bytes.push(b);
  for (let b = 0xa1; b <= 0xac; b++) bytes.push(b);
  for (let b = 0xae; b <= 0xff; b++) bytes.push(b);
  const chars = [...bytes];
  let n = 0;
  for (let b = 0; b < 256; b++) {
    if (!bytes.includes(b)) {
      bytes.push(b);
      chars.push(256 + n);
      n++;
    }
  }
  return new Map(bytes.map((b, i) => [String.fromCodePoint(chars[i] ?? 0), b]));
}

function tokenText(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (value && typeof value === 'object' && 'content' in value) return String(value.content);
  return null;
}

export class HfTokenizer implements Tokenizer {
  readonly vocabSize: number;
  readonly bos: number | null;
  readonly eos: readonly number[];
  readonly chatTemplate: string | null;
  readonly bosText: string;
  readonly eosText: string;
  readonly #encoder: Encoder;
  readonly #pieces: Uint8Array[] = [];
  /** SentencePiece decoders strip the first word's space; byte-level ones keep every byte. */
  readonly #stripFirstSpace: boolean;

  private constructor(
    encoder: Encoder,
    json: TokenizerJson,
    config: TokenizerConfig,
    extraEos: readonly number[],
  ) {
    this.#encoder = encoder;
    const vocab = Array.isArray(json.model.vocab)
      ? json.model.vocab.map(([piece], id): [string, number] => [piece, id])
      : Object.entries(json.model.vocab);
    const byteLevel = JSON.stringify(json.decoder ?? {}).includes('ByteLevel');
    const decoder = byteLevel ? byteLevelDecoder() : null;
    this.#stripFirstSpace = !byteLevel;
    const ids = new Map<string, number>();
    for (const [piece, id] of vocab) {
      ids.set(piece, id);
      this.#pieces[id] = decoder ? byteLevelBytes(piece, decoder) : sentencePieceBytes(piece);
    }
    for (const added of json.added_tokens ?? []) {
      ids.set(added.content, added.id);
      this.#pieces[added.id] = added.special ? new Uint8Array() : Buffer.from(added.content);
    }
    this.vocabSize = this.#pieces.length;
    this.bosText = tokenText(config.bos_token) ?? '';
    this.eosText = tokenText(config.eos_token) ?? '';
    this.bos = ids.get(this.bosText) ?? null;
    const eos = ids.get(this.eosText);
    this.eos = [...new Set([...(eos === undefined ? [] : [eos]), ...extraEos])];
    const template = config.chat_template;
    this.chatTemplate =
      typeof template === 'string'
        ? template
        : Array.isArray(template)
          ? ((template as { name: string; template: string }[]).find((t) => t.name === 'default')
              ?.template ?? null)
          : null;
  }

  static async fromFolder(folder: string, extraEos: readonly number[] = []): Promise<HfTokenizer> {
    const jsonPath = join(folder, 'tokenizer.json');
    if (!existsSync(jsonPath)) {
      throw new MissingModelFileError(
        folder,
        'tokenizer.json',
        'the engine reads fast tokenizers only',
      );
    }
    const configPath = join(folder, 'tokenizer_config.json');
    const config = existsSync(configPath)
      ? (JSON.parse(readFileSync(configPath, 'utf8')) as TokenizerConfig)
      : {};
    // Newer folders keep the template in chat_template.jinja, which wins as in transformers.
    const jinjaPath = join(folder, 'chat_template.jinja');
    if (existsSync(jinjaPath)) config.chat_template = readFileSync(jinjaPath, 'utf8');
    const json = JSON.parse(readFileSync(jsonPath, 'utf8')) as TokenizerJson;
    const { AutoTokenizer, env } = await import('@huggingface/transformers');
    env.allowRemoteModels = false;
    env.allowLocalModels = true;
    env.localModelPath = '';
    const encoder = await AutoTokenizer.from_pretrained(folder, { local_files_only: true });
    return new HfTokenizer(encoder, json, config, extraEos);
  }

  encode(text: string, options: { addBos?: boolean } = {}): number[] {
    return this.#encoder.encode(text, { add_special_tokens: options.addBos ?? true });
  }

  decodeNext(prev: number, next: number): Uint8Array {
    const piece = this.#pieces[next] ?? new Uint8Array();
    // SentencePiece's leading space of the first word is not part of the text.
    if ((prev < 0 || prev === this.bos) && piece[0] === 0x20 && this.#stripFirstSpace) {
      return piece.subarray(1);
    }
    return piece;
  }

  formatChat(messages: readonly ChatTurn[]): string {
    if (this.chatTemplate === null) throw new Error('this tokenizer has no chat template');
    return new Template(this.chatTemplate).render({
      messages: messages.map((m) => ({ role: m.role, content: m.content })),
      add_generation_prompt: true,
      bos_token: this.bosText,
      eos_token: this.eosText,
    });
  }
}

function byteLevelBytes(piece: string, table: Map<string, number>): Uint8Array {
  const out: number[] = [];
  for (const ch of piece) {
    const byte = table.get(ch);
    if (byte === undefined) return Buffer.from(piece);
    out.push(byte);
  }
  return Uint8Array.from(out);
}

function sentencePieceBytes(piece: string): Uint8Array {
  const raw = /^<0x([0-9A-Fa-f]{2})>$/.exec(piece);
  if (raw?.[1] !== undefined) return Uint8Array.of(parseInt(raw[1], 16));
  return Buffer.from(piece.replaceAll('\u2581', ' '));
}
