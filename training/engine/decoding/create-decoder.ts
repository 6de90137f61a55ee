// The decoder for a backend: on wasm the plain-JS loop (per-op dispatch costs more than small
// models compute, see DESIGN.md), on WebGPU the jitted jax-js step.
import type { BackendInfo } from '../kernels/backend.ts';
import { CpuDecoder } from './cpu-decoder.ts';
import type { Decoder, DecoderOptions } from './decoder.ts';
import type { WeightArenas } from '../kernels/weight-arenas.ts';
import { JaxDecoder } from './jax-decoder.ts';
import type { DecoderModel } from '../loading/weights.ts';

export function createDecoder(
  model: DecoderModel,
  backend: BackendInfo,
  options: DecoderOptions & { arenas?: WeightArenas } = {},
): Decoder {
  return backend.backend === 'webgpu'
    ? new JaxDecoder(model, 'webgpu', { ...options, shaderF16: backend.shaderF16 })
    : new CpuDecoder(model, options);
}
