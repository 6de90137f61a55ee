// Errors of the search layer. Each message says what the caller (often the model, through the
// REPL) should do differently, because it is shown back verbatim as REPL output.

/** `search(text, '')`: an empty keyword would match between every two characters. */
export class EmptyKeywordError extends Error {
  override readonly name = 'EmptyKeywordError';
  constructor() {
    super('search(): the keyword is empty; pass at least one non-space character');
  }
}

/** A search option outside its range, e.g. `window=0`. */
export class SearchOptionError extends Error {
  override readonly name = 'SearchOptionError';
  constructor(option: string, value: unknown, expected: string) {
    super(`search(): ${option}=${String(value)} is not valid; expected ${expected}`);
  }
}
