// Named errors of the local model engine. Each message says what was wrong and what to do next.
export class EngineError extends Error {
  override name = 'EngineError';
}

/** A llama2.c `.bin` checkpoint or `tokenizer.bin` that is truncated or not in the legacy format. */
export class CheckpointFormatError extends EngineError {
  override name = 'CheckpointFormatError';
  constructor(file: string, detail: string) {
    super(`'${file}' is not a readable checkpoint: ${detail}`);
  }
}

export class TokenizerFormatError extends EngineError {
  override name = 'TokenizerFormatError';
  constructor(file: string, detail: string) {
    super(`'${file}' is not a readable tokenizer: ${detail}`);
  }
}

/** A model folder lacks a file the engine needs. */
export class MissingModelFileError extends EngineError {
  override name = 'MissingModelFileError';
  constructor(folder: string, file: string, hint = '') {
    super(`the model folder '${folder}' has no ${file}${hint ? `; ${hint}` : ''}`);
  }
}

/** config.json names an architecture the decoder does not implement. */
export class UnknownArchitectureError extends EngineError {
  override name = 'UnknownArchitectureError';
  constructor(folder: string, architecture: string) {
    super(
      `the model in '${folder}' is a '${architecture}'; supported: LlamaForCausalLM, Qwen2ForCausalLM, Qwen3ForCausalLM, Qwen3_5ForCausalLM, Qwen3_5ForConditionalGeneration`,
    );
  }
}

/** A model the engine loads but this backend or trainer cannot run. */
export class UnsupportedModelError extends EngineError {
  override name = 'UnsupportedModelError';
}

/** A tensor's shape or dtype does not match what the config implies. */
export class ShapeMismatchError extends EngineError {
  override name = 'ShapeMismatchError';
  constructor(tensor: string, expected: readonly number[], actual: readonly number[]) {
    super(
      `tensor '${tensor}' has shape [${actual.join(', ')}], the config implies [${expected.join(', ')}]`,
    );
  }
}

export class UnsupportedDtypeError extends EngineError {
  override name = 'UnsupportedDtypeError';
  constructor(tensor: string, dtype: string) {
    super(`tensor '${tensor}' is stored as ${dtype}; supported: F32, F16, BF16`);
  }
}

/** WebGPU was asked for but no adapter exists (no GPU, no Vulkan driver, no SwiftShader). */
export class NoWebGpuAdapterError extends EngineError {
  override name = 'NoWebGpuAdapterError';
  constructor(detail: string) {
    super(
      `no WebGPU adapter: ${detail}. Use --backend wasm, or install a Vulkan driver (without a GPU: Debian's chromium and libvulkan1, then VK_ICD_FILENAMES=/usr/lib/chromium/vk_swiftshader_icd.json)`,
    );
  }
}

/** A request the engine cannot serve with this model (sequence too long, bad option). */
export class GenerationError extends EngineError {
  override name = 'GenerationError';
}
