// A hand-written WebAssembly SIMD kernel for the CPU decoder's matrix-vector products: y = W x with
// W [rows, cols] row-major and cols a multiple of 4, two f32x4 accumulators over eight columns per
// step (and one four-column tail). bf16 weights (cols a multiple of 8): eight a load, widened to
// f32 by a shuffle (a bf16 is a float32's high half), so they stay half the size in memory. Plain JS cannot use SIMD, and at batch 1 every linear is a matvec; the kernel runs on
// arrays that live in one WebAssembly.Memory (a `WasmArena`). Bytes are assembled here (the
// format is small) so no toolchain is needed.

import {
  I32,
  section,
  name,
  get,
  set,
  i32c,
  add,
  mul,
  shl,
  geU,
  ltU,
  gtU,
  f32Store,
  v128Load,
  f32x4Add,
  f32x4Mul,
  zeroV128,
  widenBf16,
  increment,
  mulAdd,
  laneSum,
  loopUntil,
  functionBody,
} from './wasm-assembly.ts';
import { attentionModuleBytes, type AttentionKernels } from './wasm-attention.ts';

/** One kernel's WebAssembly instructions, in order; longer than ~60 lines as one listing. */
/** matvec(out, x, w, rows, cols): byte addresses; cols % 4 === 0. */
function matvecBody(): number[] {
  // params 0 out, 1 x, 2 w, 3 rows, 4 cols; locals 5 r, 6 c, 7 wp, 8 xp, 9 acc0, 10 acc1
  const OUT = 0,
    X = 1,
    W = 2,
    ROWS = 3,
    COLS = 4,
    R = 5,
    C = 6,
    WP = 7,
    XP = 8,
    A0 = 9,
    A1 = 10;
  const row = [
    ...zeroV128,
    ...set(A0),
    ...zeroV128,
    ...set(A1),
    ...i32c(0),
    ...set(C),
    ...get(X),
    ...set(XP),
    // Eight columns a step while c + 8 <= cols.
    ...loopUntil(
      [...get(C), ...i32c(8), ...add, ...get(COLS), ...gtU],
      [
        ...mulAdd(A0, get(WP), get(XP), 0),
        ...mulAdd(A1, get(WP), get(XP), 16),
        ...increment(WP, 32),
        ...increment(XP, 32),
        ...increment(C, 8),
      ],
    ),
    // Four columns left when cols % 8 === 4.
    ...get(C),
    ...get(COLS),
    ...ltU,
    0x04,
    0x40, // if
    ...mulAdd(A0, get(WP), get(XP), 0),
    ...increment(WP, 16),
    0x0b,
    // out[r] = sum of the lanes of acc0 + acc1
    ...get(OUT),
    ...get(R),
    ...i32c(2),
    ...shl,
    ...add,
    ...get(A0),
    ...get(A1),
    ...f32x4Add,
    ...set(A0),
    ...laneSum(A0),
    ...f32Store,
    ...increment(R, 1),
  ];
  const code = [
    ...get(W),
    ...set(WP),
    ...i32c(0),
    ...set(R),
    ...loopUntil([...get(R), ...get(ROWS), ...geU], row),
  ];
  return functionBody(4, 2, code);
}

// One kernel's WebAssembly instructions, in order; longer than ~60 lines as one listing.
/**
 * matvec4(out, x, w, rows, cols): four vectors x[0..3] (consecutive, cols apart) against the same
 * rows, each weight vector loaded once for all four: out[b * rows + r]. cols % 4 === 0.
 */
function matvec4Body(): number[] {
  // params 0 out, 1 x, 2 w, 3 rows, 4 cols; locals 5 r, 6 c, 7 wp, 8 xp, 9 stride (i32),
  // 10 wv, 11-14 acc0..acc3 (v128)
  const OUT = 0,
    X = 1,
    W = 2,
    ROWS = 3,
    COLS = 4,
    R = 5,
    C = 6,
    WP = 7,
    XP = 8,
    S = 9,
    WV = 10;
  const ACC = [11, 12, 13, 14] as const;
  const batch = [0, 1, 2, 3] as const;
  // x_b = xp + b * stride; the weight vector is already in WV (pushed as an address-free value).
  const xAt = (b: number): number[] =>
    b === 0 ? get(XP) : [...get(XP), ...get(S), ...i32c(b), ...mul, ...add];
  const accumulate = (b: (typeof batch)[number]): number[] => [
    ...get(ACC[b]),
    ...get(WV),
    ...xAt(b),
    ...v128Load(0),
    ...f32x4Mul,
    ...f32x4Add,
    ...set(ACC[b]),
  ];
  // out + (b * rows + r) * 4 = the lanes of acc_b summed
  const store = (b: (typeof batch)[number]): number[] => [
    ...get(OUT),
    ...get(ROWS),
    ...i32c(b),
    ...mul,
    ...get(R),
    ...add,
    ...i32c(2),
    ...shl,
    ...add,
    ...laneSum(ACC[b]),
    ...f32Store,
  ];
  const row = [
    ...ACC.flatMap((a) => [...zeroV128, ...set(a)]),
    ...i32c(0),
    ...set(C),
    ...get(X),
    ...set(XP),
    ...loopUntil(
      [...get(C), ...get(COLS), ...geU],
      [
        ...get(WP),
        ...v128Load(0),
        ...set(WV),
        ...batch.flatMap(accumulate),
        ...increment(WP, 16),
        ...increment(XP, 16),
        ...increment(C, 4),
      ],
    ),
    ...batch.flatMap(store),
    ...increment(R, 1),
  ];
  const code = [
    ...get(COLS),
    ...i32c(2),
    ...shl,
    ...set(S),
    ...get(W),
    ...set(WP),
    ...i32c(0),
    ...set(R),
    ...loopUntil([...get(R), ...get(ROWS), ...geU], row),
  ];
  return functionBody(5, 5, code);
}

// One kernel's WebAssembly instructions, in order; longer than ~60 lines as one listing.
/**
 * matvecBf16(out, x, w, rows, cols) and, with `vectors` 4, matvec4Bf16: w holds bf16 (2 bytes a
 * weight), x and out f32; cols % 8 === 0. Each 16-byte load of w is eight weights, widened once
 * and used for every vector.
 */
function matvecBf16Body(vectors: 1 | 4): number[] {
  // params 0 out, 1 x, 2 w, 3 rows, 4 cols; locals 5 r, 6 c, 7 wp, 8 xp, 9 stride (i32),
  // 10 lo, 11 hi, 12.. acc per vector (v128)
  const OUT = 0,
    X = 1,
    W = 2,
    ROWS = 3,
    COLS = 4,
    R = 5,
    C = 6,
    WP = 7,
    XP = 8,
    S = 9,
    LO = 10,
    HI = 11;
  const batch = Array.from({ length: vectors }, (_, b) => b);
  const acc = (b: number): number => 12 + b;
  const xAt = (b: number): number[] =>
    b === 0 ? get(XP) : [...get(XP), ...get(S), ...i32c(b), ...mul, ...add];
  const accumulate = (b: number): number[] => [
    ...get(acc(b)),
    ...get(LO),
    ...xAt(b),
    ...v128Load(0),
    ...f32x4Mul,
    ...f32x4Add,
    ...get(HI),
    ...xAt(b),
    ...v128Load(16),
    ...f32x4Mul,
    ...f32x4Add,
    ...set(acc(b)),
  ];
  const store = (b: number): number[] => [
    ...get(OUT),
    ...get(ROWS),
    ...i32c(b),
    ...mul,
    ...get(R),
    ...add,
    ...i32c(2),
    ...shl,
    ...add,
    ...laneSum(acc(b)),
    ...f32Store,
  ];
  const row = [
    ...batch.flatMap((b) => [...zeroV128, ...set(acc(b))]),
    ...i32c(0),
    ...set(C),
    ...get(X),
    ...set(XP),
    ...loopUntil(
      [...get(C), ...get(COLS), ...geU],
      [
        ...zeroV128,
        ...get(WP),
        ...v128Load(0),
        ...widenBf16(false),
        ...set(LO),
        ...zeroV128,
        ...get(WP),
        ...v128Load(0),
        ...widenBf16(true),
        ...set(HI),
        ...batch.flatMap(accumulate),
        ...increment(WP, 16),
        ...increment(XP, 32),
        ...increment(C, 8),
      ],
    ),
    ...batch.flatMap(store),
    ...increment(R, 1),
  ];
  const code = [
    ...get(COLS),
    ...i32c(2),
    ...shl,
    ...set(S),
    ...get(W),
    ...set(WP),
    ...i32c(0),
    ...set(R),
    ...loopUntil([...get(R), ...get(ROWS), ...geU], row),
  ];
  return functionBody(5, 2 + vectors, code);
}

function moduleBytes(): Uint8Array {
  const type = section(1, [1, 0x60, 5, I32, I32, I32, I32, I32, 0]);
  const imports = section(2, [1, ...name('env'), ...name('memory'), 0x02, 0x00, 0x01]);
  const funcs = section(3, [4, 0, 0, 0, 0]);
  const exports = section(7, [
    4,
    ...name('matvec'),
    0x00,
    0,
    ...name('matvec4'),
    0x00,
    1,
    ...name('matvecBf16'),
    0x00,
    2,
    ...name('matvec4Bf16'),
    0x00,
    3,
  ]);
  const code = section(10, [
    4,
    ...matvecBody(),
    ...matvec4Body(),
    ...matvecBf16Body(1),
    ...matvecBf16Body(4),
  ]);
  return Uint8Array.from([
    0x00,
    0x61,
    0x73,
    0x6d,
    1,
    0,
    0,
    0,
    ...type,
    ...imports,
    ...funcs,
    ...exports,
    ...code,
  ]);
}

export type MatvecKernel = (out: number, x: number, w: number, rows: number, cols: number) => void;

// The project's lib settings carry no WebAssembly types (no DOM lib); these are the parts used.
interface WasmMemory {
  readonly buffer: ArrayBuffer;
}
interface WasmApi {
  Memory: new (descriptor: { initial: number }) => WasmMemory;
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
}
const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

interface Kernels {
  matvec: MatvecKernel;
  matvec4: MatvecKernel;
  matvecBf16: MatvecKernel;
  matvec4Bf16: MatvecKernel;
}

/** Float32 and bf16 arrays carved out of one WebAssembly.Memory, and the kernels that read them. */
export class WasmArena {
  readonly memory: WasmMemory;
  readonly matvec: MatvecKernel;
  /** Four vectors at once (x holds them consecutively; out gets four blocks of rows). */
  readonly matvec4: MatvecKernel;
  /** The same with bf16 weights (cols % 8 === 0). */
  readonly matvecBf16: MatvecKernel;
  readonly matvec4Bf16: MatvecKernel;
  /** Attention over a KV cache held in this memory (wasm-attention.ts). */
  readonly attention: AttentionKernels;
  #next = 0;

  private constructor(memory: WasmMemory, kernels: Kernels, attention: AttentionKernels) {
    this.memory = memory;
    this.matvec = kernels.matvec;
    this.matvec4 = kernels.matvec4;
    this.matvecBf16 = kernels.matvecBf16;
    this.matvec4Bf16 = kernels.matvec4Bf16;
    this.attention = attention;
  }

  /** An arena of `floats` float32s' bytes, or null where WebAssembly SIMD is unavailable. */
  static create(floats: number): WasmArena | null {
    return WasmArena.ofBytes(floats * 4 + 64);
  }

  /** Most bytes one arena holds (a 32-bit WebAssembly memory, less a page). */
  static readonly MAX_BYTES = 65535 * 65536;

  static ofBytes(bytes: number): WasmArena | null {
    const pages = Math.ceil(bytes / 65536);
    if (pages > 65535) return null;
    try {
      const memory = new wasm.Memory({ initial: pages });
      const module = new wasm.Module(moduleBytes());
      const instance = new wasm.Instance(module, { env: { memory } });
      const attention = new wasm.Instance(new wasm.Module(attentionModuleBytes()), {
        env: { memory },
      });
      return new WasmArena(
        memory,
        instance.exports as unknown as Kernels,
        attention.exports as unknown as AttentionKernels,
      );
    } catch {
      return null;
    }
  }

  /** Bytes not yet handed out. */
  get free(): number {
    return this.memory.buffer.byteLength - Math.ceil(this.#next / 16) * 16;
  }

  #take(bytes: number): number {
    const start = Math.ceil(this.#next / 16) * 16;
    const end = start + bytes;
    if (end > this.memory.buffer.byteLength) throw new RangeError('the arena is full');
    this.#next = end;
    return start;
  }

  /** A zeroed float32 array in the arena (16-byte aligned). */
  alloc(length: number): Float32Array {
    return new Float32Array(this.memory.buffer, this.#take(length * 4), length);
  }

  /** A zeroed array of bf16 bit patterns in the arena (16-byte aligned). */
  allocHalf(length: number): Uint16Array {
    return new Uint16Array(this.memory.buffer, this.#take(length * 2), length);
  }

  copy(source: Float32Array): Float32Array {
    const view = this.alloc(source.length);
    view.set(source);
    return view;
  }
}
