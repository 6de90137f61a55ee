// Passage embeddings kept in the workspace, one file per model under `embeddings/`, keyed by the
// SHA-256 of the passage text: a set's map reopens without running the model again. The file is
// append-only records (32-byte text hash, then `dimension` float32s); a record cut short by a
// crash is ignored on read and overwritten by the next append.
import { createHash } from 'node:crypto';
import { mkdirSync, openSync, closeSync, readFileSync, truncateSync, writeSync } from 'node:fs';
import { join } from 'node:path';

const HASH_BYTES = 32;

export function textHash(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

export class EmbeddingCache {
  readonly path: string;
  readonly #vectors = new Map<string, Float32Array>();
  #dimension: number | undefined;
  /** Bytes of whole records in the file; appends start here. */
  #length = 0;

  /** The cache of one model (its fingerprint) in `dir`, read whole if it exists. */
  constructor(dir: string, fingerprint: string) {
    mkdirSync(dir, { recursive: true });
    this.path = join(dir, `${textHash(fingerprint).slice(0, 32)}.vectors`);
    this.#read();
  }

  get size(): number {
    return this.#vectors.size;
  }

  get(text: string): Float32Array | undefined {
    return this.#vectors.get(textHash(text));
  }

  #read(): void {
    let bytes: Buffer;
    try {
      bytes = readFileSync(this.path);
    } catch {
      return;
    }
    if (bytes.length < 4) return;
    const dimension = bytes.readUInt32LE(0);
    const record = HASH_BYTES + 4 * dimension;
    if (dimension === 0) return;
    this.#dimension = dimension;
    let offset = 4;
    for (; offset + record <= bytes.length; offset += record) {
      const hash = bytes.subarray(offset, offset + HASH_BYTES).toString('hex');
      const start = offset + HASH_BYTES;
      const vector = new Float32Array(dimension);
      for (let d = 0; d < dimension; d++) vector[d] = bytes.readFloatLE(start + 4 * d);
      this.#vectors.set(hash, vector);
    }
    this.#length = offset;
  }

  /** Stores vectors for texts (same order) in memory and on disk, in one write. */
  add(texts: readonly string[], vectors: readonly Float32Array[]): void {
    if (texts.length === 0) return;
    const dimension = this.#dimension ?? vectors[0]?.length ?? 0;
    if (vectors.some((v) => v.length !== dimension) || dimension === 0) {
      throw new Error(
        `embedding sizes differ from the cache's ${String(dimension)}; delete '${this.path}'`,
      );
    }
    const header = this.#length === 0 ? 4 : 0;
    const record = HASH_BYTES + 4 * dimension;
    const out = Buffer.alloc(header + record * texts.length);
    if (header > 0) out.writeUInt32LE(dimension, 0);
    texts.forEach((text, i) => {
      const hash = textHash(text);
      const offset = header + i * record;
      out.write(hash, offset, 'hex');
      const vector = vectors[i] ?? new Float32Array(dimension);
      for (let d = 0; d < dimension; d++)
        out.writeFloatLE(vector[d] ?? 0, offset + HASH_BYTES + 4 * d);
      this.#vectors.set(hash, vector);
    });
    const fd = openSync(this.path, this.#length === 0 ? 'w' : 'r+');
    try {
      if (this.#length > 0) truncateSync(this.path, this.#length);
      writeSync(fd, out, 0, out.length, this.#length);
    } finally {
      closeSync(fd);
    }
    this.#dimension = dimension;
    this.#length += out.length;
  }
}
