// The engine's own small interface over a forward pass with a KV cache. Backends differ behind it:
// a plain typed-array loop for CPU decode (little per-op dispatch, fastest for small models) and
// jax-js (wasm or WebGPU) with one jitted step.
import type { DecoderConfig } from '../loading/model-config.ts';

export type BackendName = 'wasm' | 'webgpu';

/** One sequence's next token: `slot` names its KV cache, `pos` is where this token goes. */
export interface DecodeInput {
  slot: number;
  token: number;
  pos: number;
  /**
   * Nobody reads this position's logits (a prompt position before the last): a decoder may skip
   * the output head for it and leave its row of the result unspecified.
   */
  skipLogits?: boolean;
}

export interface Decoder {
  readonly config: DecoderConfig;
  /** What the user chose ('wasm' or 'webgpu') and what actually runs (e.g. 'js-f32'). */
  readonly backend: BackendName;
  readonly implementation: string;
  /** What the user should know about how it runs (e.g. an f16 request computed in f32). */
  readonly notes: readonly string[];
  /** Number of KV cache slots: sequences decoded together. */
  readonly maxBatch: number;
  /**
   * Most consecutive positions of one slot a step may take (prompt prefill in chunks; inputs of a
   * slot must then come in position order). 1 where the decoder writes one position per slot.
   */
  readonly maxChunk: number;
  readonly maxSeqLen: number;
  /** Logits of each input, [inputs.length, vocabSize], in input order. */
  step(inputs: readonly DecodeInput[]): Promise<Float32Array>;
  dispose(): void;
}

export type Precision = 'f32' | 'f16';

export interface DecoderOptions {
  maxBatch?: number;
  /** f16 weights, cache and activations (WebGPU with shader-f16 only; else f32, with a note). */
  precision?: Precision;
  /** Caps the model's own context to bound KV cache memory. */
  maxSeqLen?: number;
}

export const DEFAULT_MAX_SEQ_LEN = 2048;
