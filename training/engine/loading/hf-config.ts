// Hugging Face config.json -> DecoderConfig for Llama, Qwen2/2.5 and Qwen3 dense models and
// Qwen3.5's hybrid text model (its text_config nested or not), with rope_scaling (linear, llama3,
// yarn; 'default' and 'dynamic' below its original length are plain).
import { EngineError, UnknownArchitectureError, UnsupportedModelError } from '../errors.ts';
import type { DecoderConfig, HybridConfig, LayerType, RopeScaling } from './model-config.ts';

export type HfConfig = Record<string, unknown>;

const FAMILIES: Record<string, 'llama' | 'qwen2' | 'qwen3' | 'qwen3_5'> = {
  LlamaForCausalLM: 'llama',
  Qwen2ForCausalLM: 'qwen2',
  Qwen3ForCausalLM: 'qwen3',
  Qwen3_5ForCausalLM: 'qwen3_5',
  Qwen3_5ForConditionalGeneration: 'qwen3_5',
  Qwen3_5TextModel: 'qwen3_5',
};

const MODEL_TYPES: Record<string, 'qwen3_5'> = { qwen3_5: 'qwen3_5', qwen3_5_text: 'qwen3_5' };

/** The text model's settings: Qwen3.5's multimodal configs nest them under text_config. */
export function textConfigOf(config: HfConfig): HfConfig {
  const nested = config.text_config;
  if (nested && typeof nested === 'object' && !Array.isArray(nested)) {
    // The outer config decides for the whole model whether lm_head is tied to the embedding.
    const tied = config.tie_word_embeddings;
    return {
      ...config,
      ...(nested as HfConfig),
      ...(typeof tied === 'boolean' ? { tie_word_embeddings: tied } : {}),
    };
  }
  return config;
}

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

export function decoderConfigFromHf(folder: string, outer: HfConfig): DecoderConfig {
  const architectures = Array.isArray(outer.architectures) ? (outer.architectures as string[]) : [];
  const architecture = architectures[0] ?? str(outer, 'model_type', 'unknown');
  const family = FAMILIES[architecture] ?? MODEL_TYPES[str(outer, 'model_type', '')];
  if (!family) throw new UnknownArchitectureError(folder, architecture);
  if (
    family === 'qwen3_5' &&
    outer.text_config === undefined &&
    outer.vision_config !== undefined
  ) {
    throw new UnsupportedModelError(
      `the model in '${folder}' has a vision_config but no text_config: only a vision model, which the app does not use (it reads text only)`,
    );
  }
  const config = textConfigOf(outer);
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
  const headDim = num(config, 'head_dim', dim / nHeads);
  const hybrid = family === 'qwen3_5' ? hybridConfigFromHf(config, rope, headDim) : undefined;
  return {
    family,
    dim,
    hiddenDim: num(config, 'intermediate_size'),
    nLayers: num(config, 'num_hidden_layers'),
    nHeads,
    nKvHeads: num(config, 'num_key_value_heads', nHeads),
    headDim,
    vocabSize: num(config, 'vocab_size'),
    maxSeqLen: maxPositions,
    normEps: num(config, 'rms_norm_eps', 1e-6),
    ropeTheta,
    ropeScaling: ropeScalingFromHf(rope, maxPositions),
    ropeStyle: 'half',
    tiedEmbeddings: config.tie_word_embeddings === true,
    attentionBias: family === 'qwen2' ? true : config.attention_bias === true,
    qkNorm: family === 'qwen3' || family === 'qwen3_5',
    ...(hybrid ? { hybrid } : {}),
  };
}

/** Qwen3.5's extras, with Qwen3_5TextConfig's defaults where a key is absent. */
function hybridConfigFromHf(
  config: HfConfig,
  rope: HfConfig | null,
  headDim: number,
): HybridConfig {
  const nLayers = num(config, 'num_hidden_layers');
  let layerTypes: LayerType[];
  if (Array.isArray(config.layer_types)) {
    layerTypes = (config.layer_types as unknown[]).map((t, i) => {
      if (t === 'linear_attention' || t === 'full_attention') return t;
      throw new UnsupportedModelError(
        `layer ${i} is of type '${String(t)}'; Qwen3.5 layers are linear_attention or full_attention`,
      );
    });
    if (layerTypes.length !== nLayers) {
      throw new EngineError(
        `layer_types names ${layerTypes.length} layers, num_hidden_layers is ${nLayers}`,
      );
    }
  } else {
    const interval = num(config, 'full_attention_interval', 4);
    layerTypes = Array.from({ length: nLayers }, (_, i) =>
      (i + 1) % interval ? 'linear_attention' : 'full_attention',
    );
  }
  const partial =
    typeof rope?.partial_rotary_factor === 'number'
      ? rope.partial_rotary_factor
      : num(config, 'partial_rotary_factor', 0.25);
  const rotaryDim = Math.floor(headDim * partial);
  if (rotaryDim % 2 !== 0 || rotaryDim <= 0) {
    throw new EngineError(`partial_rotary_factor ${partial} leaves ${rotaryDim} rotary dimensions`);
  }
  const hybrid: HybridConfig = {
    layerTypes,
    linearKeyHeads: num(config, 'linear_num_key_heads', 16),
    linearValueHeads: num(config, 'linear_num_value_heads', 32),
    linearKeyHeadDim: num(config, 'linear_key_head_dim', 128),
    linearValueHeadDim: num(config, 'linear_value_head_dim', 128),
    convKernel: num(config, 'linear_conv_kernel_dim', 4),
    rotaryDim,
  };
  if (hybrid.linearValueHeads % hybrid.linearKeyHeads !== 0) {
    throw new EngineError(
      `linear_num_value_heads ${hybrid.linearValueHeads} is not a multiple of linear_num_key_heads ${hybrid.linearKeyHeads}`,
    );
  }
  return hybrid;
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
