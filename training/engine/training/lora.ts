// LoRA adapters: for each targeted linear W [out, in] of each layer, A [in, rank] and B [rank, out]
// so that y = x W^T + (alpha / rank) (x A) B. B starts at zero (the adapter starts as a no-op), A
// uniformly in +-1/sqrt(in) (PEFT's kaiming-uniform bound with a = sqrt(5)).
import { numpy as np } from '@jax-js/jax';
import { EngineError } from '../errors.ts';
import type { DecoderConfig } from '../loading/model-config.ts';
import { seededUniform } from '../loading/random-model.ts';
import { layerLinears, LINEAR_NAMES, linearShape, type LinearName } from '../loading/weights.ts';

type Arr = np.Array;

/** Hugging Face module names of the linears, as PEFT's target_modules names them. */
export const HF_MODULE_NAMES: Record<LinearName, string> = {
  wq: 'q_proj',
  wk: 'k_proj',
  wv: 'v_proj',
  wo: 'o_proj',
  w1: 'gate_proj',
  w2: 'down_proj',
  w3: 'up_proj',
  inQkv: 'in_proj_qkv',
  inZ: 'in_proj_z',
  inB: 'in_proj_b',
  inA: 'in_proj_a',
  out: 'out_proj',
};

export interface LoraConfig {
  rank: number;
  alpha: number;
  /** Linears to adapt, by engine name (wq) or Hugging Face name (q_proj). Default q and v. */
  targets: readonly string[];
}

export interface LoraPair {
  a: Arr;
  b: Arr;
}

export type LoraLayer = Partial<Record<LinearName, LoraPair>>;

export interface LoraParams {
  layers: LoraLayer[];
}

export function resolveTargets(targets: readonly string[]): LinearName[] {
  return targets.map((target) => {
    if ((LINEAR_NAMES as readonly string[]).includes(target)) return target as LinearName;
    const found = LINEAR_NAMES.find((name) => HF_MODULE_NAMES[name] === target);
    if (!found) {
      throw new EngineError(
        `LoRA target '${target}' is not a linear of the decoder; use ${Object.values(HF_MODULE_NAMES).join(', ')}`,
      );
    }
    return found;
  });
}

export function checkLoraConfig(config: LoraConfig): void {
  if (!(Number.isInteger(config.rank) && config.rank > 0)) {
    throw new EngineError(`LoRA rank must be a positive whole number, got ${config.rank}`);
  }
  if (!(config.alpha > 0))
    throw new EngineError(`LoRA alpha must be positive, got ${config.alpha}`);
  if (config.targets.length === 0) throw new EngineError('LoRA needs at least one target module');
}

export interface LoraInitOptions {
  seed?: number;
  /** Non-zero B (tests, so gradients of A are not trivially zero). */
  randomB?: boolean;
  dtype?: np.DType;
}

/** Host-side adapter values: per layer, per target, A [in, rank] and B [rank, out] row-major. */
export interface LoraArrays {
  layers: Partial<Record<LinearName, { a: Float32Array; b: Float32Array }>>[];
}

/**
 * The targets layer by layer, as PEFT matches module names: a layer adapts the targets it has
 * (Qwen3.5's linear-attention layers have in_proj_qkv..out_proj, its attention layers q_proj..);
 * a target that no layer has is an error.
 */
export function targetsByLayer(model: DecoderConfig, targets: readonly string[]): LinearName[][] {
  const names = resolveTargets(targets);
  const byLayer = Array.from({ length: model.nLayers }, (_, l) => {
    const present = layerLinears(model, l);
    return names.filter((name) => present.includes(name));
  });
  for (const name of names) {
    if (!byLayer.some((layer) => layer.includes(name))) {
      throw new EngineError(
        `LoRA target '${HF_MODULE_NAMES[name]}' is in no layer of this ${model.family} model`,
      );
    }
  }
  return byLayer;
}

export function initLoraArrays(
  model: DecoderConfig,
  config: LoraConfig,
  options: LoraInitOptions = {},
): LoraArrays {
  checkLoraConfig(config);
  const byLayer = targetsByLayer(model, config.targets);
  const next = seededUniform(options.seed ?? 0);
  return {
    layers: byLayer.map((targets) => {
      const layer: LoraArrays['layers'][number] = {};
      for (const name of targets) {
        const [out, inp] = linearShape(model, name);
        const bound = 1 / Math.sqrt(inp);
        const a = Float32Array.from({ length: inp * config.rank }, () => (next() * 2 - 1) * bound);
        const b = options.randomB
          ? Float32Array.from({ length: config.rank * out }, () => (next() * 2 - 1) * 0.1)
          : new Float32Array(config.rank * out);
        layer[name] = { a, b };
      }
      return layer;
    }),
  };
}

export function uploadLora(
  model: DecoderConfig,
  rank: number,
  arrays: LoraArrays,
  dtype: np.DType = np.float32,
): LoraParams {
  const up = (data: Float32Array, shape: number[]): Arr => {
    const array = np.array(data as Float32Array<ArrayBuffer>, { shape });
    return dtype === np.float32 ? array : array.astype(dtype);
  };
  return {
    layers: arrays.layers.map((layer) => {
      const out: LoraLayer = {};
      for (const name of LINEAR_NAMES) {
        const pair = layer[name];
        if (!pair) continue;
        const [o, i] = linearShape(model, name);
        out[name] = { a: up(pair.a, [i, rank]), b: up(pair.b, [rank, o]) };
      }
      return out;
    }),
  };
}

export async function downloadLora(params: LoraParams): Promise<LoraArrays> {
  const layers: LoraArrays['layers'] = [];
  for (const layer of params.layers) {
    const out: LoraArrays['layers'][number] = {};
    for (const name of LINEAR_NAMES) {
      const pair = layer[name];
      if (!pair) continue;
      const a = Float32Array.from((await pair.a.ref.data()) as ArrayLike<number>);
      const b = Float32Array.from((await pair.b.ref.data()) as ArrayLike<number>);
      out[name] = { a, b };
    }
    layers.push(out);
  }
  return { layers };
}
