// llama2.c's `tokenizer.bin` (int32 max_token_length, then per token: float32 score, int32 length,
// bytes) with run.c's encoder (dummy-prefix space, UTF-8 byte fallback at id + 3, greedy merges by
// highest score) and decoder (leading space dropped after BOS, `<0xXX>` raw bytes, lone control
// bytes skipped as its safe_printf does).
import { readFileSync } from 'node:fs';
import { TokenizerFormatError } from '../errors.ts';
import type { Tokenizer } from './tokenizer.ts';

const BOS = 1;

export class Llama2cTokenizer implements Tokenizer {
  readonly bos = BOS;
  /** run.c ends a sequence when the model starts the next one (BOS); EOS is a printable piece there. */
  readonly eos = [BOS];
  readonly vocabSize: number;
  readonly pieces: readonly Uint8Array[];
  readonly scores: Float32Array;
  readonly #ids = new Map<string, number>();

  constructor(pieces: Uint8Array[], scores: Float32Array) {
    this.pieces = pieces;
    this.scores = scores;
    this.vocabSize = pieces.length;
    pieces.forEach((piece, id) => {
      const key = Buffer.from(piece).toString('latin1');
      if (!this.#ids.has(key)) this.#ids.set(key, id);
    });
  }

  static fromFile(file: string, vocabSize?: number): Llama2cTokenizer {
    let bytes: Buffer;
    try {
      bytes = readFileSync(file);
    } catch (error) {
      throw new TokenizerFormatError(file, (error as Error).message);
    }
    return Llama2cTokenizer.parse(bytes, file, vocabSize);
  }

  /** Reads `vocabSize` tokens, or every token up to the end of the file when it is not given. */
  static parse(bytes: Uint8Array, file = 'tokenizer.bin', vocabSize?: number): Llama2cTokenizer {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    if (bytes.byteLength < 4) throw new TokenizerFormatError(file, 'no header');
    const maxLen = view.getInt32(0, true);
    const pieces: Uint8Array[] = [];
    const scores: number[] = [];
    let offset = 4;
    while (offset < bytes.byteLength && (vocabSize === undefined || pieces.length < vocabSize)) {
      if (offset + 8 > bytes.byteLength) {
        throw new TokenizerFormatError(file, `token ${pieces.length} is cut off`);
      }
      const score = view.getFloat32(offset, true);
      const len = view.getInt32(offset + 4, true);
      if (len < 0 || len > maxLen || offset + 8 + len > bytes.byteLength) {
        throw new TokenizerFormatError(file, `token ${pieces.length} has length ${len}`);
      }
      scores.push(score);
      pieces.push(bytes.slice(offset + 8, offset + 8 + len));
      offset += 8 + len;
    }
    if (vocabSize !== undefined && pieces.length < vocabSize) {
      throw new TokenizerFormatError(
        file,
        `${pieces.length} tokens where the model has ${vocabSize}; is it the model's own tokenizer?`,
      );
    }
    return new Llama2cTokenizer(pieces, new Float32Array(scores));
  }

  #lookup(bytes: readonly number[]): number {
    return this.#ids.get(String.fromCharCode(...bytes)) ?? -1;
  }

  encode(text: string, options: { addBos?: boolean } = {}): number[] {
    const tokens: number[] = [];
    if (options.addBos ?? true) tokens.push(BOS);
    const utf8 = new TextEncoder().encode(text);
    if (utf8.length > 0) {
      const space = this.#lookup([0x20]);
      if (space >= 0) tokens.push(space);
    }
    // One token per UTF-8 code point, or its bytes (id = byte + 3) when the vocabulary lacks it.
    let start = 0;
    while (start < utf8.length) {
      let end = start + 1;
      while (end < utf8.length && end - start < 4 && ((utf8[end] ?? 0) & 0xc0) === 0x80) end++;
      const codePoint = Array.from(utf8.subarray(start, end));
      const id = this.#lookup(codePoint);
      if (id >= 0) tokens.push(id);
      else for (const byte of codePoint) tokens.push(byte + 3);
      start = end;
    }
    this.#merge(tokens);
    return tokens;
  }

  /** Repeatedly merges the adjacent pair whose merged piece scores highest (first pair on ties). */
  #merge(tokens: number[]): void {
    for (;;) {
      let bestScore = -1e10;
      let bestId = -1;
      let bestIndex = -1;
      for (let i = 0; i < tokens.length - 1; i++) {
        const left = this.pieces[tokens[i] ?? 0] ?? new Uint8Array();
        const right = this.pieces[tokens[i + 1] ?? 0] ?? new Uint8Array();
        const id = this.#lookup([...left, ...right]);
        if (id >= 0 && (this.scores[id] ?? -Infinity) > bestScore) {
          bestScore = this.scores[id] ?? -Infinity;
          bestId = id;
          bestIndex = i;
        }
      }
      if (bestIndex < 0) return;
      tokens.splice(bestIndex, 2, bestId);
    }
  }

  decodeNext(prev: number, next: number): Uint8Array {
    let piece = this.pieces[next] ?? new Uint8Array();
    if (prev === BOS && piece[0] === 0x20) piece = piece.subarray(1);
    const raw = /^<0x([0-9A-Fa-f]{2})>/.exec(Buffer.from(piece).toString('latin1'));
    if (raw?.[1] !== undefined) piece = Uint8Array.of(parseInt(raw[1], 16));
    if (piece.length === 1) {
      const byte = piece[0] ?? 0;
      const printable = byte >= 0x20 && byte < 0x7f;
      const space = byte >= 0x09 && byte <= 0x0d;
      // run.c skips lone unprintable bytes; bytes of a UTF-8 sequence are kept so text survives.
      if (!printable && !space && byte < 0x80) return new Uint8Array();
    }
    if (piece[0] === 0) return new Uint8Array();
    return piece;
  }
}
