// Hugging Face config.json -> DecoderConfig for Llama, Qwen2/2.5 and Qwen3 dense models, with
// rope_scaling (linear, llama3, yarn; 'default' and 'dynamic' below its original length are plain).
import { EngineError, UnknownArchitectureError } from '../errors.ts';
import type { DecoderConfig, RopeScaling } from './model-config.ts';

export type HfConfig = Record<string, unknown>;

const FAMILIES: Record<string, 'llama' | 'qwen2' | 'qwen3'> = {
  LlamaForCausalLM: 'llama',
  Qwen2ForCausalLM: 'qwen2',
  Qwen3ForCausalLM: 'qwen3',
};

function str(config: HfConfig, key: string, fallback: string): string {
  const value = config[key];
  return typeof value === 'string' ? value : fallback;
}

function num(config: HfConfig, key: string, fallback?: number): number {
  const value = config[key];
  if (typeof value === 'number') return value;
  if (fallback !== undefined) return fallback;
  throw new EngineError(`config.json has no number '${key}'`);
}

export function decoderConfigFromHf(folder: string, config: HfConfig): DecoderConfig {
  const architectures = Array.isArray(config.architectures)
    ? (config.architectures as string[])
    : [];
  const architecture = architectures[0] ?? str(config, 'model_type', 'unknown');
  const family = FAMILIES[architecture];
  if (!family) throw new UnknownArchitectureError(folder, architecture);
  const act = str(config, 'hidden_act', 'silu');
  if (act !== 'silu') throw new EngineError(`hidden_act '${act}' is not supported (silu only)`);
  if (config.mlp_bias === true) throw new EngineError('mlp_bias is not supported');
  const dim = num(config, 'hidden_size');
  const nHeads = num(config, 'num_attention_heads');
  const maxPositions = num(config, 'max_position_embeddings', 2048);
  const rope = (config.rope_parameters ?? config.rope_scaling ?? null) as HfConfig | null;
  const ropeTheta = num(
    config,
    'rope_theta',
    typeof rope?.rope_theta === 'number' ? rope.rope_theta : 10000,
  );
  return {
    family,
    dim,
    hiddenDim: num(config, 'intermediate_size'),
    nLayers: num(config, 'num_hidden_layers'),
    nHeads,
    nKvHeads: num(config, 'num_key_value_heads', nHeads),
    headDim: num(config, 'head_dim', dim / nHeads),
    vocabSize: num(config, 'vocab_size'),
    maxSeqLen: maxPositions,
    normEps: num(config, 'rms_norm_eps', 1e-6),
    ropeTheta,
    ropeScaling: ropeScalingFromHf(rope, maxPositions),
    ropeStyle: 'half',
    tiedEmbeddings: config.tie_word_embeddings === true,
    attentionBias: family === 'qwen2' ? true : config.attention_bias === true,
    qkNorm: family === 'qwen3',
  };
}

export function ropeScalingFromHf(rope: HfConfig | null, maxPositions: number): RopeScaling {
  if (!rope) return { kind: 'none' };
  const type = str(rope, 'rope_type', str(rope, 'type', 'default'));
  const factor = typeof rope.factor === 'number' ? rope.factor : 1;
  const original = num(rope, 'original_max_position_embeddings', maxPositions);
  switch (type) {
    case 'default':
    case 'dynamic': // NTK scaling only changes frequencies past the original length
      return { kind: 'none' };
    case 'linear':
      return { kind: 'linear', factor };
    case 'llama3':
      return {
        kind: 'llama3',
        factor,
        lowFreqFactor: num(rope, 'low_freq_factor', 1),
        highFreqFactor: num(rope, 'high_freq_factor', 4),
        originalMaxPositions: original,
      };
    case 'yarn':
      return {
        kind: 'yarn',
        factor,
        originalMaxPositions: original,
        betaFast: num(rope, 'beta_fast', 32),
        betaSlow: num(rope, 'beta_slow', 1),
        attentionFactor: num(
          rope,
          'attention_factor',
          factor <= 1 ? 1 : 0.1 * Math.log(factor) + 1,
        ),
      };
    default:
      throw new EngineError(
        `rope scaling '${type}' is not supported (linear, llama3, yarn, dynamic)`,
      );
  }
}
