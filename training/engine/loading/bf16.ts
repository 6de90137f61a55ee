// bf16 weights kept as their bit patterns (a bf16 is the high half of a float32), so a model
// stored in bf16 takes half the memory of float32; consumers that compute in float32 widen them.

export class Bf16Array {
  readonly bits: Uint16Array;

  constructor(bits: Uint16Array) {
    this.bits = bits;
  }

  get length(): number {
    return this.bits.length;
  }

  /** Round to nearest even, as torch's .to(torch.bfloat16). */
  static fromFloat32(values: Float32Array): Bf16Array {
    const words = new Uint32Array(Float32Array.from(values).buffer);
    const bits = new Uint16Array(values.length);
    for (let i = 0; i < words.length; i++) {
      const x = words[i] ?? 0;
      bits[i] = (x + 0x7fff + ((x >>> 16) & 1)) >>> 16;
    }
    return new Bf16Array(bits);
  }

  toFloat32(): Float32Array {
    const out = new Float32Array(this.bits.length);
    this.widenInto(out, 0, 0, this.bits.length);
    return out;
  }

  /** Widens values [start, start + length) into `out` at `outOffset`. */
  widenInto(out: Float32Array, outOffset: number, start: number, length: number): void {
    const words = new Uint32Array(out.buffer, out.byteOffset + outOffset * 4, length);
    for (let i = 0; i < length; i++) words[i] = (this.bits[start + i] ?? 0) << 16;
  }
}

/** A weight matrix as the loader keeps it: float32, or bf16 when the checkpoint stores bf16. */
export type WeightArray = Float32Array | Bf16Array;

/** The weights as float32: the array itself, or a widened copy. */
export function float32Of(w: WeightArray): Float32Array {
  return w instanceof Bf16Array ? w.toFloat32() : w;
}

/** Bytes a weight array takes. */
export function bytesOf(w: WeightArray): number {
  return w instanceof Bf16Array ? w.bits.byteLength : w.byteLength;
}

/**
 * Where a loader puts the weights it reads: plain arrays by default, or memory a decoder's kernels
 * read directly (so a checkpoint is read once, into its final place, and never held twice).
 */
export interface WeightStore {
  f32(length: number): Float32Array;
  bf16(length: number): Bf16Array;
}

export const HEAP_STORE: WeightStore = {
  f32: (length) => new Float32Array(length),
  bf16: (length) => new Bf16Array(new Uint16Array(length)),
};
