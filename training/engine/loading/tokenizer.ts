// What generation needs from a tokenizer, whichever file it came from (llama2.c's tokenizer.bin,
// Hugging Face's tokenizer.json). Decoding is incremental: `decodeNext` returns the bytes a new
// token adds, so streaming never splits what the model meant (UTF-8 is joined by the caller).
export interface Tokenizer {
  readonly vocabSize: number;
  /** Begin-of-sequence id, or null when the model has none. */
  readonly bos: number | null;
  /** Ids that end a sequence. */
  readonly eos: readonly number[];
  /** Token ids of `text`, with the BOS first when `addBos` and the model has one. */
  encode(text: string, options?: { addBos?: boolean }): number[];
  /** The bytes token `next` adds after token `prev` (prev is -1 at the start). */
  decodeNext(prev: number, next: number): Uint8Array;
}

/** Joins decoded bytes into text; holds back an incomplete UTF-8 sequence until it completes. */
export class TextStream {
  readonly #decoder = new TextDecoder('utf-8');
  text = '';
  /** Appends bytes and returns the newly complete text. */
  push(bytes: Uint8Array): string {
    const chunk = this.#decoder.decode(bytes, { stream: true });
    this.text += chunk;
    return chunk;
  }
  end(): string {
    const chunk = this.#decoder.decode();
    this.text += chunk;
    return chunk;
  }
}
