// A hand-written WebAssembly SIMD kernel for the CPU decoder's matrix-vector products: y = W x with
// W [rows, cols] row-major and cols a multiple of 4, two f32x4 accumulators over eight columns per
// step (and one four-column tail). Plain JS cannot use SIMD, and at batch 1 every linear is a matvec; the kernel runs on
// arrays that live in one WebAssembly.Memory (a `WasmArena`). Bytes are assembled here (the
// format is small) so no toolchain is needed.

const I32 = 0x7f;
const V128 = 0x7b;

function leb(n: number): number[] {
  const out: number[] = [];
  let v = n >>> 0;
  do {
    let byte = v & 0x7f;
    v >>>= 7;
    if (v !== 0) byte |= 0x80;
    out.push(byte);
  } while (v !== 0);
  return out;
}

function section(id: number, body: number[]): number[] {
  return [id, ...leb(body.length), ...body];
}

function name(s: string): number[] {
  return [...leb(s.length), ...Buffer.from(s)];
}

// Opcodes.
const get = (i: number) => [0x20, i];
const set = (i: number) => [0x21, i];
const i32c = (v: number) => [0x41, ...leb(v)];
const add = [0x6a];
const mul = [0x6c];
const shl = [0x74];
const geU = [0x4f];
const ltU = [0x49];
const gtU = [0x4b];
const f32Add = [0x92];
const f32Store = [0x38, 2, 0]; // align 4, offset 0
const simd = (op: number, ...rest: number[]) => [0xfd, ...leb(op), ...rest];
const v128Load = (offset: number) => simd(0x00, 4, ...leb(offset)); // align 2^4
const f32x4Add = simd(0xe4);
const f32x4Mul = simd(0xe6);
const lane = (i: number) => simd(0x1f, i);
const zeroV128 = simd(0x0c, ...new Array<number>(16).fill(0));

// Pieces both kernels are made of.
/** local += by (i32) */
const increment = (local: number, by: number) => [
  ...get(local),
  ...i32c(by),
  ...add,
  ...set(local),
];
/** acc += load(w + offset) * load(x + offset), with `w` and `x` as instructions that push addresses */
const mulAdd = (acc: number, w: number[], x: number[], offset: number) => [
  ...get(acc),
  ...w,
  ...v128Load(offset),
  ...x,
  ...v128Load(offset),
  ...f32x4Mul,
  ...f32x4Add,
  ...set(acc),
];
/** Pushes the sum of the four lanes of a v128 local as one f32. */
const laneSum = (v: number) => [
  ...get(v),
  ...lane(0),
  ...get(v),
  ...lane(1),
  ...f32Add,
  ...get(v),
  ...lane(2),
  ...get(v),
  ...lane(3),
  ...f32Add,
  ...f32Add,
];
/** block { loop { exit when `done` pushes true; body; repeat } } */
const loopUntil = (done: number[], body: number[]) => [
  0x02,
  0x40,
  0x03,
  0x40,
  ...done,
  0x0d,
  1, // br_if out of the block
  ...body,
  0x0c,
  0, // br to the loop
  0x0b,
  0x0b,
];
const functionBody = (i32Locals: number, v128Locals: number, code: number[]) => {
  const body = [2, ...leb(i32Locals), I32, ...leb(v128Locals), V128, ...code, 0x0b];
  return [...leb(body.length), ...body];
};

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

function moduleBytes(): Uint8Array {
  const type = section(1, [1, 0x60, 5, I32, I32, I32, I32, I32, 0]);
  const imports = section(2, [1, ...name('env'), ...name('memory'), 0x02, 0x00, 0x01]);
  const funcs = section(3, [2, 0, 0]);
  const exports = section(7, [2, ...name('matvec'), 0x00, 0, ...name('matvec4'), 0x00, 1]);
  const code = section(10, [2, ...matvecBody(), ...matvec4Body()]);
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

/** Float32 arrays carved out of one WebAssembly.Memory, and the kernel that reads them. */
export class WasmArena {
  readonly memory: WasmMemory;
  readonly matvec: MatvecKernel;
  /** Four vectors at once (x holds them consecutively; out gets four blocks of rows). */
  readonly matvec4: MatvecKernel;
  #next = 0;

  private constructor(memory: WasmMemory, matvec: MatvecKernel, matvec4: MatvecKernel) {
    this.memory = memory;
    this.matvec = matvec;
    this.matvec4 = matvec4;
  }

  /** An arena of `floats` float32s, or null where WebAssembly SIMD is unavailable. */
  static create(floats: number): WasmArena | null {
    const bytes = floats * 4 + 64;
    const pages = Math.ceil(bytes / 65536);
    if (pages > 65536) return null;
    try {
      const memory = new wasm.Memory({ initial: pages });
      const module = new wasm.Module(moduleBytes());
      const instance = new wasm.Instance(module, { env: { memory } });
      const matvec = instance.exports.matvec as MatvecKernel;
      const matvec4 = instance.exports.matvec4 as MatvecKernel;
      return new WasmArena(memory, matvec, matvec4);
    } catch {
      return null;
    }
  }

  /** A zeroed float32 array in the arena (16-byte aligned). */
  alloc(length: number): Float32Array {
    const start = Math.ceil(this.#next / 16) * 16;
    const end = start + length * 4;
    if (end > this.memory.buffer.byteLength) throw new RangeError('the arena is full');
    this.#next = end;
    return new Float32Array(this.memory.buffer, start, length);
  }

  copy(source: Float32Array): Float32Array {
    const view = this.alloc(source.length);
    view.set(source);
    return view;
  }
}
