// llama2.c's legacy `.bin` checkpoint: seven int32 (dim, hidden_dim, n_layers, n_heads, n_kv_heads,
// vocab_size, seq_len; a negative vocab_size means an untied classifier follows), then float32
// weights in run.c's order, with two unused rotary tables before the classifier.
import { readFileSync, writeFileSync } from 'node:fs';
import { CheckpointFormatError } from '../errors.ts';
import type { DecoderConfig } from './model-config.ts';
import type { DecoderModel, DecoderWeights, LayerWeights } from './weights.ts';
import { float32Of, type WeightArray } from './bf16.ts';

const HEADER_BYTES = 28;

export function llama2cConfig(header: Int32Array): DecoderConfig {
  const [dim = 0, hiddenDim = 0, nLayers = 0, nHeads = 0, nKvHeads = 0, vocab = 0, seqLen = 0] =
    header;
  return {
    family: 'llama2c',
    dim,
    hiddenDim,
    nLayers,
    nHeads,
    nKvHeads,
    headDim: nHeads > 0 ? dim / nHeads : 0,
    vocabSize: Math.abs(vocab),
    maxSeqLen: seqLen,
    normEps: 1e-5,
    ropeTheta: 10000,
    ropeScaling: { kind: 'none' },
    ropeStyle: 'interleaved',
    tiedEmbeddings: vocab > 0,
    attentionBias: false,
    qkNorm: false,
  };
}

function checkHeader(file: string, c: DecoderConfig): void {
  const fields = { dim: c.dim, hiddenDim: c.hiddenDim, nLayers: c.nLayers, nHeads: c.nHeads };
  for (const [name, value] of Object.entries(fields)) {
    if (!(value > 0 && value < 1 << 20)) {
      throw new CheckpointFormatError(file, `header field ${name} is ${value}`);
    }
  }
  if (!(c.nKvHeads > 0 && c.nHeads % c.nKvHeads === 0)) {
    throw new CheckpointFormatError(file, `n_kv_heads ${c.nKvHeads} does not divide n_heads`);
  }
  if (!Number.isInteger(c.headDim) || c.headDim % 2 !== 0) {
    throw new CheckpointFormatError(file, `dim ${c.dim} / n_heads ${c.nHeads} is not an even size`);
  }
  if (!(c.vocabSize > 0 && c.maxSeqLen > 0)) {
    throw new CheckpointFormatError(file, 'vocab_size and seq_len must be positive');
  }
}

/** Floats in the file after the header, in order. */
function llama2cFloatCount(c: DecoderConfig): number {
  const { dim, hiddenDim, nLayers, nHeads, nKvHeads, headDim, vocabSize, maxSeqLen } = c;
  const perLayer =
    dim * 2 + dim * nHeads * headDim * 2 + dim * nKvHeads * headDim * 2 + dim * hiddenDim * 3;
  return (
    vocabSize * dim +
    nLayers * perLayer +
    dim +
    maxSeqLen * headDim +
    (c.tiedEmbeddings ? 0 : vocabSize * dim)
  );
}

export function readLlama2cCheckpoint(file: string): DecoderModel {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (error) {
    throw new CheckpointFormatError(file, (error as Error).message);
  }
  return parseLlama2cCheckpoint(bytes, file);
}

export function parseLlama2cCheckpoint(bytes: Uint8Array, file = 'checkpoint'): DecoderModel {
  if (bytes.byteLength < HEADER_BYTES) {
    throw new CheckpointFormatError(file, `${bytes.byteLength} bytes is shorter than the header`);
  }
  // Uint8Array's slice copies (Buffer's would not), giving aligned buffers of their own.
  const copy = (start: number, end?: number): ArrayBuffer =>
    Uint8Array.prototype.slice.call(bytes, start, end).buffer;
  const header = new Int32Array(copy(0, HEADER_BYTES));
  const config = llama2cConfig(header);
  checkHeader(file, config);
  const expected = HEADER_BYTES + 4 * llama2cFloatCount(config);
  if (bytes.byteLength !== expected) {
    throw new CheckpointFormatError(
      file,
      `${bytes.byteLength} bytes where its header implies ${expected} (is it a llama2.c legacy .bin?)`,
    );
  }
  // Copy once into an aligned buffer; every weight is a view into it.
  const floats = new Float32Array(copy(HEADER_BYTES));
  let offset = 0;
  const take = (n: number): Float32Array => {
    const view = floats.subarray(offset, offset + n);
    offset += n;
    return view;
  };
  const { dim, hiddenDim, nLayers, nHeads, nKvHeads, headDim, vocabSize, maxSeqLen } = config;
  const qDim = nHeads * headDim;
  const kvDim = nKvHeads * headDim;
  const tokenEmbedding = take(vocabSize * dim);
  const stacked = (n: number): Float32Array[] => Array.from({ length: nLayers }, () => take(n));
  const attnNorm = stacked(dim);
  const wq = stacked(qDim * dim);
  const wk = stacked(kvDim * dim);
  const wv = stacked(kvDim * dim);
  const wo = stacked(dim * qDim);
  const ffnNorm = stacked(dim);
  const w1 = stacked(hiddenDim * dim);
  const w2 = stacked(dim * hiddenDim);
  const w3 = stacked(hiddenDim * dim);
  const finalNorm = take(dim);
  take(maxSeqLen * headDim); // freq_cis_real and freq_cis_imag: run.c recomputes them
  const lmHead = config.tiedEmbeddings ? tokenEmbedding : take(vocabSize * dim);
  const layers: LayerWeights[] = attnNorm.map((norm, l) => ({
    attnNorm: norm,
    wq: at(wq, l),
    wk: at(wk, l),
    wv: at(wv, l),
    wo: at(wo, l),
    bq: null,
    bk: null,
    bv: null,
    qNorm: null,
    kNorm: null,
    ffnNorm: at(ffnNorm, l),
    w1: at(w1, l),
    w2: at(w2, l),
    w3: at(w3, l),
  }));
  const weights: DecoderWeights = { tokenEmbedding, layers, finalNorm, lmHead };
  return { config, weights };
}

/** Writes a model in the legacy format (llama2.c's `run` reads it). Llama-shaped models only. */
export function serializeLlama2cCheckpoint(model: DecoderModel): Uint8Array {
  const { config: c, weights: w } = model;
  if (c.attentionBias || c.qkNorm || c.headDim * c.nHeads !== c.dim) {
    throw new CheckpointFormatError(
      'output',
      'llama2.c checkpoints hold plain Llama models only (no biases, no q/k norms, head_dim = dim / n_heads)',
    );
  }
  const header = new Int32Array([
    c.dim,
    c.hiddenDim,
    c.nLayers,
    c.nHeads,
    c.nKvHeads,
    c.tiedEmbeddings ? c.vocabSize : -c.vocabSize,
    c.maxSeqLen,
  ]);
  const out = new Float32Array(llama2cFloatCount(c));
  let offset = 0;
  const put = (weights: WeightArray): void => {
    const a = float32Of(weights);
    out.set(a, offset);
    offset += a.length;
  };
  put(w.tokenEmbedding);
  const keys = ['attnNorm', 'wq', 'wk', 'wv', 'wo', 'ffnNorm', 'w1', 'w2', 'w3'] as const;
  for (const key of keys) for (const layer of w.layers) put(layer[key]);
  put(w.finalNorm);
  offset += c.maxSeqLen * c.headDim;
  if (!c.tiedEmbeddings) put(w.lmHead);
  const bytes = new Uint8Array(HEADER_BYTES + out.byteLength);
  bytes.set(new Uint8Array(header.buffer), 0);
  bytes.set(new Uint8Array(out.buffer), HEADER_BYTES);
  return bytes;
}

export function writeLlama2cCheckpoint(file: string, model: DecoderModel): void {
  writeFileSync(file, serializeLlama2cCheckpoint(model));
}

function at(list: readonly Float32Array[], index: number): Float32Array {
  const item = list[index];
  if (!item) throw new RangeError(`no layer ${index}`);
  return item;
}
