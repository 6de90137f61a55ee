// Picks the compute backend at start-up: WebGPU when an adapter exists (Dawn through the `webgpu`
// package in Node, the browser's own elsewhere), else wasm; either can be forced. WebGPU loads
// lazily, and a missing adapter is a NoWebGpuAdapterError (when forced) or a note, never a crash.
import { defaultDevice, init } from '@jax-js/jax';
import type { BackendName } from '../decoding/decoder.ts';
import { NoWebGpuAdapterError } from '../errors.ts';

export type BackendChoice = BackendName | 'auto';

export interface BackendInfo {
  backend: BackendName;
  /** The adapter's description, when WebGPU runs. */
  adapter: string | null;
  /** Whether the WebGPU device offers `shader-f16` (SwiftShader does not). */
  shaderF16: boolean;
  /** What was tried and why the choice fell where it did. */
  notes: string[];
}

export interface GpuProbe {
  adapter: GPUAdapter | null;
  detail: string;
}

let gpuProbe: Promise<GpuProbe> | undefined;

/** Makes `navigator.gpu` exist in Node (via Dawn) and asks it for an adapter, once per process. */
export function probeWebGpuAdapter(): Promise<GpuProbe> {
  gpuProbe ??= (async (): Promise<GpuProbe> => {
    const nav = globalThis.navigator as (Navigator & { gpu?: GPU }) | undefined;
    let gpu = nav?.gpu;
    if (!gpu) {
      try {
        const dawn = await import('webgpu');
        Object.assign(globalThis, dawn.globals);
        gpu = dawn.create(['backend=vulkan']);
      } catch (error) {
        return { adapter: null, detail: `the webgpu package did not load (${String(error)})` };
      }
      // Node 24's navigator is a getter; jax-js reads navigator.gpu and navigator.userAgent.
      Object.defineProperty(globalThis, 'navigator', {
        value: {
          gpu,
          userAgent: nav?.userAgent ?? 'node',
          hardwareConcurrency: nav?.hardwareConcurrency ?? 1,
        },
        configurable: true,
        writable: true,
      });
    }
    const adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
    return adapter
      ? { adapter, detail: describe(adapter) }
      : { adapter: null, detail: 'requestAdapter() returned null (no GPU or Vulkan driver found)' };
  })();
  return gpuProbe;
}

function describe(adapter: GPUAdapter): string {
  const info = adapter.info;
  const parts = [info.vendor, info.architecture, info.device, info.description].filter(
    (part) => part !== '',
  );
  return parts.length > 0 ? parts.join(' ') : 'unnamed adapter';
}

/** Starts the backend and makes it jax-js's default device. */
export async function startBackend(choice: BackendChoice = 'auto'): Promise<BackendInfo> {
  const notes: string[] = [];
  if (choice !== 'wasm') {
    const probe = await probeWebGpuAdapter();
    if (probe.adapter) {
      const devices = await init('webgpu');
      if (devices.includes('webgpu')) {
        defaultDevice('webgpu');
        return {
          backend: 'webgpu',
          adapter: probe.detail,
          shaderF16: probe.adapter.features.has('shader-f16'),
          notes,
        };
      }
      probe.detail = 'jax-js could not start its WebGPU backend on the adapter';
    }
    if (choice === 'webgpu') throw new NoWebGpuAdapterError(probe.detail);
    notes.push(`WebGPU unavailable: ${probe.detail}; using wasm`);
  }
  await init('wasm');
  defaultDevice('wasm');
  return { backend: 'wasm', adapter: null, shaderF16: false, notes };
}
