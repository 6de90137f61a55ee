// Whether WebGPU tests can run here: null when an adapter exists, else the reason to print.
// Without a GPU, CI runs them on SwiftShader: Debian's chromium ships its Vulkan ICD.
import { existsSync } from 'node:fs';
import { probeWebGpuAdapter } from './backend.ts';

const SWIFTSHADER_ICD = '/usr/lib/chromium/vk_swiftshader_icd.json';

export async function webGpuUnavailable(): Promise<string | null> {
  if (process.env.VK_ICD_FILENAMES === undefined && existsSync(SWIFTSHADER_ICD)) {
    process.env.VK_ICD_FILENAMES = SWIFTSHADER_ICD;
  }
  process.env.XDG_RUNTIME_DIR ??= '/tmp';
  const probe = await probeWebGpuAdapter();
  return probe.adapter ? null : `no WebGPU adapter: ${probe.detail}`;
}
