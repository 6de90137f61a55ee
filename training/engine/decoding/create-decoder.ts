// The decoder for a backend: on wasm the plain-JS loop (per-op dispatch costs more than small
// models compute, see DESIGN.md), on WebGPU the jitted jax-js step (f16 for a bf16/f16 checkpoint
// where the device has shader-f16).
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
  if (backend.backend !== 'webgpu') return new CpuDecoder(model, options);
  // A half-precision checkpoint stays half on the GPU where it can compute in f16; elsewhere f32
  // is the named fallback.
  const half = model.storedAs !== undefined && options.precision === undefined;
  const decoder = new JaxDecoder(model, 'webgpu', {
    ...options,
    ...(half && backend.shaderF16 ? { precision: 'f16' as const } : {}),
    shaderF16: backend.shaderF16,
  });
  if (half && !backend.shaderF16) {
    decoder.notes.push(
      `the checkpoint is ${model.storedAs ?? 'half'}; this WebGPU device has no shader-f16, so its weights are f32 on the device`,
    );
  }
  return decoder;
}
