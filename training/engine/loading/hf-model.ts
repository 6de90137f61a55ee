// A Hugging Face model folder as a LocalModel: config.json, safetensors weights (f32, f16, bf16,
// sharded), the tokenizer and its chat template. f16/bf16 weights are widened to f32 on load and
// the notes say so (the decoders compute in f32; SwiftShader has no shader-f16).
import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { MissingModelFileError } from '../errors.ts';
import { decoderConfigFromHf, type HfConfig } from './hf-config.ts';
import { HfTokenizer } from './hf-tokenizer.ts';
import { loadHfWeights } from './hf-weights.ts';
import { plainChat, type LocalModel } from './local-model.ts';
import type { DecoderModel } from './weights.ts';

function readJson(folder: string, file: string): HfConfig | null {
  const path = join(folder, file);
  return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as HfConfig) : null;
}

function ids(value: unknown): number[] {
  if (typeof value === 'number') return [value];
  return Array.isArray(value) ? value.filter((v): v is number => typeof v === 'number') : [];
}

/** config.json + safetensors -> DecoderModel, with notes on widened dtypes. */
export function loadHfDecoderModel(folder: string): { model: DecoderModel; notes: string[] } {
  const config = readJson(folder, 'config.json');
  if (!config) throw new MissingModelFileError(folder, 'config.json');
  const decoderConfig = decoderConfigFromHf(folder, config);
  const { weights, dtypes } = loadHfWeights(folder, decoderConfig);
  const narrow = dtypes.filter((d) => d !== 'F32');
  const notes = narrow.length
    ? [`weights stored as ${narrow.join(', ')} are computed in f32 (widened on load)`]
    : [];
  return { model: { config: decoderConfig, weights }, notes };
}

export async function loadHuggingFaceModel(folder: string): Promise<LocalModel> {
  const { model, notes } = loadHfDecoderModel(folder);
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
