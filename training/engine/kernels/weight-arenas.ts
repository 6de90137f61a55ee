// The CPU decoder's weights in WebAssembly memories, float32 or bf16, and the matmul that reads
// them. One memory holds at most 4 GB, so a larger model spans several; a memory's pages cost
// nothing until written, so each is made at full size. A product whose vectors live in another
// memory than its weights copies them to a staging area there (vectors are tiny beside weights).
import { Bf16Array, type WeightArray, type WeightStore } from '../loading/bf16.ts';
import { WasmArena } from './wasm-matvec.ts';
import type { AttentionKernels } from './wasm-attention.ts';

/** Bytes each memory keeps for staging vectors (untouched, so free, unless a product needs it). */
const STAGE_BYTES = 256 * 1024 * 1024;

interface Segment {
  arena: WasmArena;
  stage: Float32Array | undefined;
  /** Bytes kept free for the stage (none in a memory sized to hold everything). */
  reserve: number;
}

export class WeightArenas implements WeightStore {
  readonly #segments: Segment[] = [];
  readonly #byBuffer = new Map<ArrayBufferLike, Segment>();

  /**
   * null where WebAssembly SIMD is unavailable. `bytes`: what the first memory must hold when the
   * caller knows it (a decoder copying a model), so a small model does not take a 4 GB memory.
   */
  static create(bytes?: number): WeightArenas | null {
    const arenas = new WeightArenas();
    const sized = bytes !== undefined && bytes + 65536 < WasmArena.MAX_BYTES;
    return arenas.#grow(sized ? bytes + 65536 : WasmArena.MAX_BYTES, sized ? 0 : STAGE_BYTES)
      ? arenas
      : null;
  }

  #grow(bytes = WasmArena.MAX_BYTES, reserve = STAGE_BYTES): Segment | null {
    const arena = WasmArena.ofBytes(bytes);
    if (!arena) return null;
    const segment: Segment = { arena, stage: undefined, reserve };
    this.#segments.push(segment);
    this.#byBuffer.set(arena.memory.buffer, segment);
    return segment;
  }

  #segmentWith(bytes: number): Segment {
    const last = this.#segments.at(-1);
    if (last && last.arena.free - last.reserve >= bytes + 16) return last;
    if (bytes + 16 > WasmArena.MAX_BYTES - STAGE_BYTES) {
      throw new RangeError(`one tensor of ${bytes} bytes does not fit a WebAssembly memory`);
    }
    const grown = this.#grow();
    if (!grown) throw new RangeError('no WebAssembly memory could be made for the weights');
    return grown;
  }

  f32(length: number): Float32Array {
    return this.#segmentWith(length * 4).arena.alloc(length);
  }

  bf16(length: number): Bf16Array {
    return new Bf16Array(this.#segmentWith(length * 2).arena.allocHalf(length));
  }

  /** Scratch vectors (in the first memory with room, beside most weights). */
  scratch(length: number): Float32Array {
    return this.f32(length);
  }

  holds(w: WeightArray): boolean {
    const buffer = w instanceof Bf16Array ? w.bits.buffer : w.buffer;
    return this.#byBuffer.has(buffer);
  }

  /** The attention kernels, when every array lies in one memory of the arenas; else null. */
  attentionFor(...arrays: Float32Array[]): AttentionKernels | null {
    const segment = this.#byBuffer.get(arrays[0]?.buffer ?? new ArrayBuffer(0));
    if (!segment) return null;
    const buffer = segment.arena.memory.buffer;
    return arrays.every((a) => a.buffer === buffer) ? segment.arena.attention : null;
  }

  /** The array in the arenas: itself when it is already there. */
  place(w: WeightArray): WeightArray {
    if (this.holds(w)) return w;
    if (w instanceof Bf16Array) {
      const copy = this.bf16(w.length);
      copy.bits.set(w.bits);
      return copy;
    }
    const copy = this.f32(w.length);
    copy.set(w);
    return copy;
  }

  /** Bytes of the memories' pages; only those written take real memory. */
  get reservedBytes(): number {
    return this.#segments.length * WasmArena.MAX_BYTES;
  }

  /**
   * out[b*rows + r] = W[r,:] . x[b*cols : (b+1)*cols] for `batch` vectors, or false when the
   * kernels cannot take this product (W outside the arenas, or a shape they do not handle).
   */
  matmul(
    out: Float32Array,
    x: Float32Array,
    w: WeightArray,
    rows: number,
    cols: number,
    batch: number,
  ): boolean {
    const half = w instanceof Bf16Array;
    const segment = this.#byBuffer.get(half ? w.bits.buffer : w.buffer);
    if (!segment || cols % (half ? 8 : 4) !== 0) return false;
    const { arena } = segment;
    const buffer = arena.memory.buffer;
    let xs = x;
    let os = out;
    if (x.buffer !== buffer || out.buffer !== buffer) {
      const need = batch * (rows + cols);
      if (!segment.stage) {
        const room = Math.min(STAGE_BYTES, arena.free - 16);
        if (room < need * 4) return false;
        segment.stage = arena.alloc(Math.floor(room / 4));
      }
      const stage = segment.stage;
      if (stage.length < need) return false;
      xs = stage.subarray(0, batch * cols);
      xs.set(x.subarray(0, batch * cols));
      os = stage.subarray(batch * cols, batch * (cols + rows));
    }
    const wAt = w instanceof Bf16Array ? w.bits.byteOffset : w.byteOffset;
    const one = half ? arena.matvecBf16 : arena.matvec;
    const four = half ? arena.matvec4Bf16 : arena.matvec4;
    let b = 0;
    // Four vectors per pass: each weight is read once for all four.
    for (; b + 4 <= batch; b += 4) {
      four(os.byteOffset + b * rows * 4, xs.byteOffset + b * cols * 4, wAt, rows, cols);
    }
    for (; b < batch; b++) {
      one(os.byteOffset + b * rows * 4, xs.byteOffset + b * cols * 4, wAt, rows, cols);
    }
    if (os !== out) out.set(os.subarray(0, batch * rows));
    return true;
  }
}
