// The local model engine's public face: loaders, decoders, generation, backends.
export {
  startBackend,
  probeWebGpuAdapter,
  type BackendChoice,
  type BackendInfo,
} from './kernels/backend.ts';
export { CpuDecoder } from './decoding/cpu-decoder.ts';
export type {
  BackendName,
  DecodeInput,
  Decoder,
  DecoderOptions,
  Precision,
} from './decoding/decoder.ts';
export * from './errors.ts';
export {
  generate,
  generateBatch,
  GenerationAbortedError,
  type GenerateOptions,
  type Generation,
  type SequenceRequest,
} from './decoding/generate.ts';
export { JaxDecoder } from './decoding/jax-decoder.ts';
export {
  readLlama2cCheckpoint,
  parseLlama2cCheckpoint,
  serializeLlama2cCheckpoint,
  writeLlama2cCheckpoint,
} from './loading/llama2c-checkpoint.ts';
export { Llama2cTokenizer } from './loading/llama2c-tokenizer.ts';
export { paramCount, type DecoderConfig, type RopeScaling } from './loading/model-config.ts';
export { randomDecoderModel } from './loading/random-model.ts';
export { Sampler, type SamplingOptions } from './decoding/sampler.ts';
export type { Tokenizer } from './loading/tokenizer.ts';
export type { DecoderModel, DecoderWeights, LayerWeights } from './loading/weights.ts';
export {
  loadLocalModel,
  plainChat,
  type ChatTurn,
  type LocalModel,
} from './loading/local-model.ts';
export { loadHfDecoderModel, loadHuggingFaceModel } from './loading/hf-model.ts';
export { writeHfModel, hfTensors, type HfExportOptions } from './loading/hf-export.ts';
export { HfTokenizer } from './loading/hf-tokenizer.ts';
export {
  readSafetensorsHeader,
  readTensor,
  serializeSafetensors,
  writeSafetensors,
  type TensorToWrite,
} from './loading/safetensors.ts';
export { LocalProvider } from './decoding/local-provider.ts';
export { localProviderFactory } from './decoding/local-provider-factory.ts';
export { createDecoder } from './decoding/create-decoder.ts';
export { Trainer, type TrainerOptions } from './training/trainer.ts';
export {
  HF_MODULE_NAMES,
  initLoraArrays,
  resolveTargets,
  type LoraArrays,
  type LoraConfig,
} from './training/lora.ts';
export { loadAdapter, mergeLora, saveAdapter } from './training/adapter-io.ts';
export { AdamW, learningRateAt, type AdamWOptions, type LrSchedule } from './training/optimizer.ts';
export {
  LoraPolicy,
  type LoraPolicyOptions,
  type PolicyScores,
  type PolicyTurn,
} from './training/lora-policy.ts';
export type { AdamWState } from './training/optimizer.ts';
export { decoderConfigFromHf } from './loading/hf-config.ts';
export { WeightArenas } from './kernels/weight-arenas.ts';
export { Bf16Array, type WeightArray, type WeightStore } from './loading/bf16.ts';
