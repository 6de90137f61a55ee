// WebAssembly SIMD kernels for the CPU decoder's attention over its KV cache, run on the same
// memory as the matvec kernels (the cache lives there): a query's dot product with n cached keys
// (rows `stride` bytes apart), and the attention-weighted sum of n cached values. Attention's
// share of a 25M model's decode was a fifth in plain JS (DECISIONS.md).
import {
  I32,
  section,
  name,
  get,
  set,
  i32c,
  add,
  shl,
  geU,
  f32Store,
  simd,
  v128Load,
  f32x4Add,
  f32x4Mul,
  zeroV128,
  increment,
  laneSum,
  loopUntil,
  functionBody,
} from './wasm-assembly.ts';

const f32Load = [0x2a, 2, 0]; // align 4, offset 0
const f32x4Splat = simd(0x13);
const v128Store = simd(0x0b, 4, 0);

/** dots(out, q, k, n, d, stride): out[t] = q . k_t for t < n, k_t at k + t * stride; d % 4 === 0. */
function dotsBody(): number[] {
  // params 0 out, 1 q, 2 k, 3 n, 4 d, 5 stride; i32 locals 6 t, 7 i, 8 kp, 9 dBytes; v128 10 acc
  const OUT = 0,
    Q = 1,
    K = 2,
    N = 3,
    D = 4,
    STRIDE = 5,
    T = 6,
    I = 7,
    KP = 8,
    DB = 9,
    ACC = 10;
  const row = [
    ...zeroV128,
    ...set(ACC),
    ...i32c(0),
    ...set(I),
    ...loopUntil(
      [...get(I), ...get(DB), ...geU],
      [
        ...get(ACC),
        ...get(KP),
        ...get(I),
        ...add,
        ...v128Load(0),
        ...get(Q),
        ...get(I),
        ...add,
        ...v128Load(0),
        ...f32x4Mul,
        ...f32x4Add,
        ...set(ACC),
        ...increment(I, 16),
      ],
    ),
    ...get(OUT),
    ...get(T),
    ...i32c(2),
    ...shl,
    ...add,
    ...laneSum(ACC),
    ...f32Store,
    ...increment(T, 1),
    ...get(KP),
    ...get(STRIDE),
    ...add,
    ...set(KP),
  ];
  const code = [
    ...get(D),
    ...i32c(2),
    ...shl,
    ...set(DB),
    ...get(K),
    ...set(KP),
    ...i32c(0),
    ...set(T),
    ...loopUntil([...get(T), ...get(N), ...geU], row),
  ];
  return functionBody(4, 1, code);
}

/** weighted(out, a, v, n, d, stride): out[0..d) = sum over t < n of a[t] v_t; d % 4 === 0. */
function weightedBody(): number[] {
  // params 0 out, 1 a, 2 v, 3 n, 4 d, 5 stride; i32 locals 6 t, 7 i, 8 vp, 9 dBytes; v128 10 s
  const OUT = 0,
    A = 1,
    V = 2,
    N = 3,
    D = 4,
    STRIDE = 5,
    T = 6,
    I = 7,
    VP = 8,
    DB = 9,
    S = 10;
  const at = (base: number): number[] => [...get(base), ...get(I), ...add];
  const row = [
    ...get(A),
    ...get(T),
    ...i32c(2),
    ...shl,
    ...add,
    ...f32Load,
    ...f32x4Splat,
    ...set(S),
    ...i32c(0),
    ...set(I),
    ...loopUntil(
      [...get(I), ...get(DB), ...geU],
      [
        ...at(OUT),
        ...at(OUT),
        ...v128Load(0),
        ...get(S),
        ...at(VP),
        ...v128Load(0),
        ...f32x4Mul,
        ...f32x4Add,
        ...v128Store,
        ...increment(I, 16),
      ],
    ),
    ...increment(T, 1),
    ...get(VP),
    ...get(STRIDE),
    ...add,
    ...set(VP),
  ];
  const code = [
    ...get(D),
    ...i32c(2),
    ...shl,
    ...set(DB),
    ...i32c(0),
    ...set(I),
    ...loopUntil(
      [...get(I), ...get(DB), ...geU],
      [...at(OUT), ...zeroV128, ...v128Store, ...increment(I, 16)],
    ),
    ...get(V),
    ...set(VP),
    ...i32c(0),
    ...set(T),
    ...loopUntil([...get(T), ...get(N), ...geU], row),
  ];
  return functionBody(4, 1, code);
}

export function attentionModuleBytes(): Uint8Array {
  const type = section(1, [1, 0x60, 6, I32, I32, I32, I32, I32, I32, 0]);
  const imports = section(2, [1, ...name('env'), ...name('memory'), 0x02, 0x00, 0x01]);
  const funcs = section(3, [2, 0, 0]);
  const exports = section(7, [2, ...name('dots'), 0x00, 0, ...name('weighted'), 0x00, 1]);
  const code = section(10, [2, ...dotsBody(), ...weightedBody()]);
  const header = [0x00, 0x61, 0x73, 0x6d, 1, 0, 0, 0];
  return Uint8Array.from([...header, ...type, ...imports, ...funcs, ...exports, ...code]);
}

/** (out, a-or-q, rows, n, d, strideBytes): byte addresses in the arena's memory. */
export type AttentionKernel = (
  out: number,
  vector: number,
  rows: number,
  n: number,
  d: number,
  stride: number,
) => void;

export interface AttentionKernels {
  dots: AttentionKernel;
  weighted: AttentionKernel;
}
