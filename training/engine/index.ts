// The local model engine's public face: loaders, decoders, generation, backends.
export {
  startBackend,
  probeWebGpuAdapter,
  type BackendChoice,
  type BackendInfo,
} from './backend.ts';
export { CpuDecoder } from './cpu-decoder.ts';
export type { BackendName, DecodeInput, Decoder, DecoderOptions, Precision } from './decoder.ts';
export * from './errors.ts';
export {
  generate,
  generateBatch,
  GenerationAbortedError,
  type GenerateOptions,
  type Generation,
  type SequenceRequest,
} from './generate.ts';
export { JaxDecoder } from './jax-decoder.ts';
export {
  readLlama2cCheckpoint,
  parseLlama2cCheckpoint,
  serializeLlama2cCheckpoint,
  writeLlama2cCheckpoint,
} from './llama2c-checkpoint.ts';
export { Llama2cTokenizer } from './llama2c-tokenizer.ts';
export { paramCount, type DecoderConfig, type RopeScaling } from './model-config.ts';
export { randomDecoderModel } from './random-model.ts';
export { Sampler, type SamplingOptions } from './sampler.ts';
export type { Tokenizer } from './tokenizer.ts';
export type { DecoderModel, DecoderWeights, LayerWeights } from './weights.ts';
export { loadLocalModel, plainChat, type ChatTurn, type LocalModel } from './local-model.ts';
export { loadHfDecoderModel, loadHuggingFaceModel } from './hf-model.ts';
export { writeHfModel, hfTensors, type HfExportOptions } from './hf-export.ts';
export { HfTokenizer } from './hf-tokenizer.ts';
export {
  readSafetensorsHeader,
  readTensor,
  serializeSafetensors,
  writeSafetensors,
  type TensorToWrite,
} from './safetensors.ts';
export { LocalProvider } from './local-provider.ts';
export { localProviderFactory } from './local-provider-factory.ts';
export { createDecoder } from './create-decoder.ts';
export { Trainer, type TrainerOptions } from './trainer.ts';
export {
  HF_MODULE_NAMES,
  initLoraArrays,
  resolveTargets,
  type LoraArrays,
  type LoraConfig,
} from './lora.ts';
export { loadAdapter, mergeLora, saveAdapter } from './adapter-io.ts';
export { AdamW, learningRateAt, type AdamWOptions, type LrSchedule } from './optimizer.ts';
export {
  LoraPolicy,
  type LoraPolicyOptions,
  type PolicyScores,
  type PolicyTurn,
} from './lora-policy.ts';
export type { AdamWState } from './optimizer.ts';
