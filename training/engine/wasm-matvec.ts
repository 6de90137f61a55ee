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
const geU = [0x4f];
const simd = (op: number, ...rest: number[]) => [0xfd, ...leb(op), ...rest];
const v128Load = (offset: number) => simd(0x00, 4, ...leb(offset)); // align 2^4
const f32x4Add = simd(0xe4);
const f32x4Mul = simd(0xe6);
const lane = (i: number) => simd(0x1f, i);

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
  const zero = simd(0x0c, ...new Array<number>(16).fill(0));
  const code = [
    ...get(W),
    ...set(WP),
    ...i32c(0),
    ...set(R),
    0x02,
    0x40, // block (rows done)
    0x03,
    0x40, // loop (rows)
    ...get(R),
    ...get(ROWS),
    ...geU,
    0x0d,
    1, // br_if rows-done
    ...zero,
    ...set(A0),
    ...zero,
    ...set(A1),
    ...i32c(0),
    ...set(C),
    ...get(X),
    ...set(XP),
    0x02,
    0x40, // block (cols done)
    0x03,
    0x40, // loop (cols)
    ...get(C),
    ...i32c(8),
    ...add,
    ...get(COLS),
    0x4b /* gt_u */,
    0x0d,
    1,
    ...get(A0),
    ...get(WP),
    ...v128Load(0),
    ...get(XP),
    ...v128Load(0),
    ...f32x4Mul,
    ...f32x4Add,
    ...set(A0),
    ...get(A1),
    ...get(WP),
    ...v128Load(16),
    ...get(XP),
    ...v128Load(16),
    ...f32x4Mul,
    ...f32x4Add,
    ...set(A1),
    ...get(WP),
    ...i32c(32),
    ...add,
    ...set(WP),
    ...get(XP),
    ...i32c(32),
    ...add,
    ...set(XP),
    ...get(C),
    ...i32c(8),
    ...add,
    ...set(C),
    0x0c,
    0, // br cols
    0x0b,
    0x0b, // end loop, end block
    // Four columns left when cols % 8 === 4.
    ...get(C),
    ...get(COLS),
    0x49 /* lt_u */,
    0x04,
    0x40,
    ...get(A0),
    ...get(WP),
    ...v128Load(0),
    ...get(XP),
    ...v128Load(0),
    ...f32x4Mul,
    ...f32x4Add,
    ...set(A0),
    ...get(WP),
    ...i32c(16),
    ...add,
    ...set(WP),
    0x0b,
    // out[r] = sum of the lanes of acc0 + acc1
    ...get(OUT),
    ...get(R),
    ...i32c(2),
    0x74 /* shl */,
    ...add,
    ...get(A0),
    ...get(A1),
    ...f32x4Add,
    ...set(A0),
    ...get(A0),
    ...lane(0),
    ...get(A0),
    ...lane(1),
    0x92,
    ...get(A0),
    ...lane(2),
    ...get(A0),
    ...lane(3),
    0x92,
    0x92,
    0x38,
    2,
    0, // f32.store align 4
    ...get(R),
    ...i32c(1),
    ...add,
    ...set(R),
    0x0c,
    0, // br rows
    0x0b,
    0x0b, // end loop, end block
    0x0b, // end function
  ];
  const decl = [2, ...leb(4), I32, ...leb(2), V128];
  const body = [...decl, ...code];
  return [...leb(body.length), ...body];
}

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
  const ACC = [11, 12, 13, 14];
  const zero = simd(0x0c, ...new Array<number>(16).fill(0));
  const xAt = (b: number): number[] =>
    b === 0 ? get(XP) : [...get(XP), ...get(S), ...i32c(b), 0x6c /* mul */, ...add];
  const accumulate = (b: number): number[] => [
    ...get(ACC[b] ?? 0),
    ...get(WV),
    ...xAt(b),
    ...v128Load(0),
    ...f32x4Mul,
    ...f32x4Add,
    ...set(ACC[b] ?? 0),
  ];
  const store = (b: number): number[] => [
    // address: out + (b * rows + r) * 4
    ...get(OUT),
    ...get(ROWS),
    ...i32c(b),
    0x6c,
    ...get(R),
    ...add,
    ...i32c(2),
    0x74,
    ...add,
    ...get(ACC[b] ?? 0),
    ...lane(0),
    ...get(ACC[b] ?? 0),
    ...lane(1),
    0x92,
    ...get(ACC[b] ?? 0),
    ...lane(2),
    ...get(ACC[b] ?? 0),
    ...lane(3),
    0x92,
    0x92,
    0x38,
    2,
    0,
  ];
  const code = [
    ...get(COLS),
    ...i32c(2),
    0x74,
    ...set(S),
    ...get(W),
    ...set(WP),
    ...i32c(0),
    ...set(R),
    0x02,
    0x40,
    0x03,
    0x40,
    ...get(R),
    ...get(ROWS),
    ...geU,
    0x0d,
    1,
    ...ACC.flatMap((a) => [...zero, ...set(a)]),
    ...i32c(0),
    ...set(C),
    ...get(X),
    ...set(XP),
    0x02,
    0x40,
    0x03,
    0x40,
    ...get(C),
    ...get(COLS),
    ...geU,
    0x0d,
    1,
    ...get(WP),
    ...v128Load(0),
    ...set(WV),
    ...accumulate(0),
    ...accumulate(1),
    ...accumulate(2),
    ...accumulate(3),
    ...get(WP),
    ...i32c(16),
    ...add,
    ...set(WP),
    ...get(XP),
    ...i32c(16),
    ...add,
    ...set(XP),
    ...get(C),
    ...i32c(4),
    ...add,
    ...set(C),
    0x0c,
    0,
    0x0b,
    0x0b,
    ...store(0),
    ...store(1),
    ...store(2),
    ...store(3),
    ...get(R),
    ...i32c(1),
    ...add,
    ...set(R),
    0x0c,
    0,
    0x0b,
    0x0b,
    0x0b,
  ];
  const decl = [2, ...leb(5), I32, ...leb(5), V128];
  const body = [...decl, ...code];
  return [...leb(body.length), ...body];
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
