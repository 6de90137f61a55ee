// A Hugging Face model folder as a LocalModel: config.json, safetensors weights (f32, f16, bf16,
// sharded), the tokenizer and its chat template. bf16 linears stay bf16 in memory, f16 ones are
// widened to f32; the decoders compute in f32, and the notes say so with the bytes the weights take.
import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { MissingModelFileError } from '../errors.ts';
import { decoderConfigFromHf, type HfConfig } from './hf-config.ts';
import { HfTokenizer } from './hf-tokenizer.ts';
import { loadHfWeights } from './hf-weights.ts';
import type { WeightStore } from './bf16.ts';
import { plainChat, type LocalModel } from './local-model.ts';
import { weightBytes, type DecoderModel } from './weights.ts';

function readJson(folder: string, file: string): HfConfig | null {
  const path = join(folder, file);
  return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as HfConfig) : null;
}

function ids(value: unknown): number[] {
  if (typeof value === 'number') return [value];
  return Array.isArray(value) ? value.filter((v): v is number => typeof v === 'number') : [];
}

export interface HfLoadOptions {
  /** Where the linears go (default: plain arrays); a CPU decoder's arenas to load in place. */
  store?: WeightStore;
}

/** config.json + safetensors -> DecoderModel, with notes on dtypes and memory. */
export function loadHfDecoderModel(
  folder: string,
  options: HfLoadOptions = {},
): { model: DecoderModel; notes: string[] } {
  const config = readJson(folder, 'config.json');
  if (!config) throw new MissingModelFileError(folder, 'config.json');
  const decoderConfig = decoderConfigFromHf(folder, config);
  const { weights, dtypes } = loadHfWeights(folder, decoderConfig, options.store);
  const notes: string[] = [];
  if (dtypes.includes('BF16')) notes.push('bf16 weights stay bf16 in memory, computed in f32');
  if (dtypes.includes('F16')) notes.push('f16 weights are widened to f32 on load, computed in f32');
  const bytes = weightBytes(weights);
  const gb = (n: number): string => `${(n / 1e9).toFixed(2)} GB`;
  notes.push(`weights take ${gb(bytes.total)} (bf16 ${gb(bytes.bf16)}, f32 ${gb(bytes.f32)})`);
  const half = dtypes.includes('BF16') ? 'bf16' : dtypes.includes('F16') ? 'f16' : null;
  return {
    model: { config: decoderConfig, weights, ...(half ? { storedAs: half } : {}) },
    notes,
  };
}

export async function loadHuggingFaceModel(
  folder: string,
  options: HfLoadOptions = {},
): Promise<LocalModel> {
  const { model, notes } = loadHfDecoderModel(folder, options);
  const config = readJson(folder, 'config.json') ?? {};
  const generation = readJson(folder, 'generation_config.json') ?? {};
  const tokenizer = await HfTokenizer.fromFolder(folder, [
    ...ids(config.eos_token_id),
    ...ids(generation.eos_token_id),
  ]);
  const hasTemplate = tokenizer.chatTemplate !== null;
  return {
    name: basename(folder),
    source: 'huggingface',
    model,
    tokenizer,
    formatChat: hasTemplate ? (messages) => tokenizer.formatChat(messages) : plainChat,
    chatHasBos: hasTemplate,
    notes,
  };
}
