// LoRA adapters on disk in PEFT's layout (adapter_model.safetensors with
// base_model.model.model.layers.N.self_attn.q_proj.lora_A.weight [rank, in] and lora_B [out, rank],
// adapter_config.json with r, lora_alpha and target_modules), and merging them into the weights.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EngineError, MissingModelFileError, ShapeMismatchError } from '../errors.ts';
import {
  HF_MODULE_NAMES,
  resolveTargets,
  targetsByLayer,
  type LoraArrays,
  type LoraConfig,
} from './lora.ts';
import type { DecoderConfig } from '../loading/model-config.ts';
import {
  readSafetensorsHeader,
  readTensor,
  serializeSafetensors,
  type TensorToWrite,
} from '../loading/safetensors.ts';
import {
  LINEAR_NAMES,
  linearOf,
  linearShape,
  withLinear,
  type DecoderModel,
  type LayerWeights,
  type LinearName,
} from '../loading/weights.ts';
import { float32Of } from '../loading/bf16.ts';

const MODULE_GROUP: Record<LinearName, string> = {
  wq: 'self_attn',
  wk: 'self_attn',
  wv: 'self_attn',
  wo: 'self_attn',
  w1: 'mlp',
  w2: 'mlp',
  w3: 'mlp',
  inQkv: 'linear_attn',
  inZ: 'linear_attn',
  inB: 'linear_attn',
  inA: 'linear_attn',
  out: 'linear_attn',
};

function key(layer: number, name: LinearName, part: 'lora_A' | 'lora_B'): string {
  return `base_model.model.model.layers.${layer}.${MODULE_GROUP[name]}.${HF_MODULE_NAMES[name]}.${part}.weight`;
}

/** [rows, cols] row-major -> [cols, rows] */
function transpose(a: Float32Array, rows: number, cols: number): Float32Array {
  const out = new Float32Array(a.length);
  for (let r = 0; r < rows; r++)
    for (let c = 0; c < cols; c++) out[c * rows + r] = a[r * cols + c] ?? 0;
  return out;
}

export function saveAdapter(
  dir: string,
  model: DecoderConfig,
  lora: LoraConfig,
  arrays: LoraArrays,
): void {
  mkdirSync(dir, { recursive: true });
  const tensors: Record<string, TensorToWrite> = {};
  arrays.layers.forEach((layer, l) => {
    for (const name of LINEAR_NAMES) {
      const pair = layer[name];
      if (!pair) continue;
      const [out, inp] = linearShape(model, name);
      // Ours: A [in, rank], B [rank, out]; PEFT: lora_A [rank, in], lora_B [out, rank].
      tensors[key(l, name, 'lora_A')] = {
        shape: [lora.rank, inp],
        data: transpose(pair.a, inp, lora.rank),
      };
      tensors[key(l, name, 'lora_B')] = {
        shape: [out, lora.rank],
        data: transpose(pair.b, lora.rank, out),
      };
    }
  });
  writeFileSync(
    join(dir, 'adapter_model.safetensors'),
    serializeSafetensors(tensors, { format: 'pt' }),
  );
  const targets = resolveTargets(lora.targets).map((name) => HF_MODULE_NAMES[name]);
  writeFileSync(
    join(dir, 'adapter_config.json'),
    JSON.stringify(
      {
        peft_type: 'LORA',
        r: lora.rank,
        lora_alpha: lora.alpha,
        target_modules: targets,
        bias: 'none',
      },
      null,
      2,
    ),
  );
}

export function loadAdapter(
  dir: string,
  model: DecoderConfig,
): { lora: LoraConfig; arrays: LoraArrays } {
  const configPath = join(dir, 'adapter_config.json');
  const weightsPath = join(dir, 'adapter_model.safetensors');
  if (!existsSync(configPath)) throw new MissingModelFileError(dir, 'adapter_config.json');
  if (!existsSync(weightsPath)) throw new MissingModelFileError(dir, 'adapter_model.safetensors');
  const raw = JSON.parse(readFileSync(configPath, 'utf8')) as {
    r?: number;
    lora_alpha?: number;
    target_modules?: string[];
  };
  if (
    typeof raw.r !== 'number' ||
    typeof raw.lora_alpha !== 'number' ||
    !Array.isArray(raw.target_modules)
  ) {
    throw new EngineError(`'${configPath}' lacks r, lora_alpha or target_modules`);
  }
  const lora: LoraConfig = { rank: raw.r, alpha: raw.lora_alpha, targets: raw.target_modules };
  const file = readSafetensorsHeader(weightsPath);
  const byLayer = targetsByLayer(model, lora.targets);
  const arrays: LoraArrays = { layers: [] };
  for (let l = 0; l < model.nLayers; l++) {
    const layer: LoraArrays['layers'][number] = {};
    for (const name of byLayer[l] ?? []) {
      const [out, inp] = linearShape(model, name);
      const check = (k: string, shape: number[]): Float32Array => {
        const info = file.tensors.get(k);
        if (!info) throw new MissingModelFileError(dir, `tensor '${k}'`);
        if (info.shape.join() !== shape.join()) throw new ShapeMismatchError(k, shape, info.shape);
        return readTensor(file, k);
      };
      const a = check(key(l, name, 'lora_A'), [lora.rank, inp]);
      const b = check(key(l, name, 'lora_B'), [out, lora.rank]);
      layer[name] = { a: transpose(a, lora.rank, inp), b: transpose(b, out, lora.rank) };
    }
    arrays.layers.push(layer);
  }
  return { lora, arrays };
}

/** W + (alpha / rank) (A B)^T for every adapted linear: a plain model with the adapter baked in. */
export function mergeLora(model: DecoderModel, lora: LoraConfig, arrays: LoraArrays): DecoderModel {
  const scale = lora.alpha / lora.rank;
  const r = lora.rank;
  const layers = model.weights.layers.map((layer, l) => {
    let merged: LayerWeights = layer;
    for (const name of LINEAR_NAMES) {
      const pair = arrays.layers[l]?.[name];
      if (!pair) continue;
      const [out, inp] = linearShape(model.config, name);
      const w = Float32Array.from(float32Of(linearOf(layer, name)));
      for (let o = 0; o < out; o++) {
        for (let i = 0; i < inp; i++) {
          let s = 0;
          for (let k = 0; k < r; k++) s += (pair.a[i * r + k] ?? 0) * (pair.b[k * out + o] ?? 0);
          w[o * inp + i] = (w[o * inp + i] ?? 0) + scale * s;
        }
      }
      merged = withLinear(merged, name, w);
    }
    return merged;
  });
  return { config: model.config, weights: { ...model.weights, layers } };
}
