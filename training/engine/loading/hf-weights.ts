// Hugging Face safetensors (one file or shards with model.safetensors.index.json) -> DecoderWeights,
// every tensor's shape checked against the config.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MissingModelFileError, ShapeMismatchError } from '../errors.ts';
import type { DecoderConfig } from './model-config.ts';
import { readSafetensorsHeader, readTensor, type SafetensorsFile } from './safetensors.ts';
import type { DecoderWeights, LayerWeights } from './weights.ts';

export interface LoadedWeights {
  weights: DecoderWeights;
  /** Stored dtypes seen, e.g. ['BF16']. */
  dtypes: string[];
}

function openShards(folder: string): Map<string, SafetensorsFile> {
  const index = join(folder, 'model.safetensors.index.json');
  let files: string[];
  if (existsSync(index)) {
    const map = (JSON.parse(readFileSync(index, 'utf8')) as { weight_map: Record<string, string> })
      .weight_map;
    files = [...new Set(Object.values(map))];
  } else {
    files = readdirSync(folder).filter((f) => f.endsWith('.safetensors'));
  }
  if (files.length === 0) {
    throw new MissingModelFileError(
      folder,
      'model.safetensors',
      'only safetensors weights are read',
    );
  }
  const byTensor = new Map<string, SafetensorsFile>();
  for (const file of files) {
    const path = join(folder, file);
    if (!existsSync(path))
      throw new MissingModelFileError(folder, file, 'the shard index names it');
    const header = readSafetensorsHeader(path);
    for (const name of header.tensors.keys()) byTensor.set(name, header);
  }
  return byTensor;
}

export function loadHfWeights(folder: string, c: DecoderConfig): LoadedWeights {
  const shards = openShards(folder);
  const dtypes = new Set<string>();
  const has = (name: string): boolean => shards.has(name);
  const tensor = (name: string, shape: number[]): Float32Array => {
    const file = shards.get(name);
    if (!file)
      throw new MissingModelFileError(
        folder,
        `tensor '${name}'`,
        'is it a model of this architecture?',
      );
    const info = file.tensors.get(name);
    if (!info) throw new MissingModelFileError(folder, `tensor '${name}'`);
    if (info.shape.length !== shape.length || info.shape.some((d, i) => d !== shape[i])) {
      throw new ShapeMismatchError(name, shape, info.shape);
    }
    dtypes.add(info.dtype);
    return readTensor(file, name);
  };
  const qDim = c.nHeads * c.headDim;
  const kvDim = c.nKvHeads * c.headDim;
  const layers: LayerWeights[] = [];
  for (let l = 0; l < c.nLayers; l++) {
    const p = `model.layers.${l}.`;
    const bias = (name: string, size: number): Float32Array | null =>
      c.attentionBias ? tensor(`${p}self_attn.${name}.bias`, [size]) : null;
    layers.push({
      attnNorm: tensor(`${p}input_layernorm.weight`, [c.dim]),
      wq: tensor(`${p}self_attn.q_proj.weight`, [qDim, c.dim]),
      wk: tensor(`${p}self_attn.k_proj.weight`, [kvDim, c.dim]),
      wv: tensor(`${p}self_attn.v_proj.weight`, [kvDim, c.dim]),
      wo: tensor(`${p}self_attn.o_proj.weight`, [c.dim, qDim]),
      bq: bias('q_proj', qDim),
      bk: bias('k_proj', kvDim),
      bv: bias('v_proj', kvDim),
      qNorm: c.qkNorm ? tensor(`${p}self_attn.q_norm.weight`, [c.headDim]) : null,
      kNorm: c.qkNorm ? tensor(`${p}self_attn.k_norm.weight`, [c.headDim]) : null,
      ffnNorm: tensor(`${p}post_attention_layernorm.weight`, [c.dim]),
      w1: tensor(`${p}mlp.gate_proj.weight`, [c.hiddenDim, c.dim]),
      w2: tensor(`${p}mlp.down_proj.weight`, [c.dim, c.hiddenDim]),
      w3: tensor(`${p}mlp.up_proj.weight`, [c.hiddenDim, c.dim]),
    });
  }
  const tokenEmbedding = tensor('model.embed_tokens.weight', [c.vocabSize, c.dim]);
  // Some exports keep lm_head even when tied; a tied model without it reuses the embedding.
  const lmHead =
    c.tiedEmbeddings && !has('lm_head.weight')
      ? tokenEmbedding
      : tensor('lm_head.weight', [c.vocabSize, c.dim]);
  return {
    weights: { tokenEmbedding, layers, finalNorm: tensor('model.norm.weight', [c.dim]), lmHead },
    dtypes: [...dtypes],
  };
}
