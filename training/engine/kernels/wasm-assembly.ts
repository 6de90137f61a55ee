// The few WebAssembly encodings the hand-written kernels use (LEB128, sections, opcodes, a loop
// and a function body), so the kernels assemble without a toolchain.
export const I32 = 0x7f;
export const V128 = 0x7b;

export function leb(n: number): number[] {
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

export function section(id: number, body: number[]): number[] {
  return [id, ...leb(body.length), ...body];
}

export function name(s: string): number[] {
  return [...leb(s.length), ...Buffer.from(s)];
}

// Opcodes.
export const get = (i: number) => [0x20, i];
export const set = (i: number) => [0x21, i];
export const i32c = (v: number) => [0x41, ...leb(v)];
export const add = [0x6a];
export const mul = [0x6c];
export const shl = [0x74];
export const geU = [0x4f];
export const ltU = [0x49];
export const gtU = [0x4b];
export const f32Add = [0x92];
export const f32Store = [0x38, 2, 0]; // align 4, offset 0
export const simd = (op: number, ...rest: number[]) => [0xfd, ...leb(op), ...rest];
export const v128Load = (offset: number) => simd(0x00, 4, ...leb(offset)); // align 2^4
export const f32x4Add = simd(0xe4);
export const f32x4Mul = simd(0xe6);
export const lane = (i: number) => simd(0x1f, i);
export const zeroV128 = simd(0x0c, ...new Array<number>(16).fill(0));
/** bf16 lanes 0-3 (low) or 4-7 (high) of the v128 on the stack as f32x4: zero low halves. */
export const widenBf16 = (high: boolean): number[] => {
  const lanes: number[] = [];
  for (let i = 0; i < 4; i++) {
    const b = 16 + (high ? 8 : 0) + 2 * i;
    lanes.push(0, 0, b, b + 1);
  }
  return simd(0x0d, ...lanes);
};

// Pieces both kernels are made of.
/** local += by (i32) */
export const increment = (local: number, by: number) => [
  ...get(local),
  ...i32c(by),
  ...add,
  ...set(local),
];
/** acc += load(w + offset) * load(x + offset), with `w` and `x` as instructions that push addresses */
export const mulAdd = (acc: number, w: number[], x: number[], offset: number) => [
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
export const laneSum = (v: number) => [
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
export const loopUntil = (done: number[], body: number[]) => [
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
export const functionBody = (i32Locals: number, v128Locals: number, code: number[]) => {
  const body = [2, ...leb(i32Locals), I32, ...leb(v128Locals), V128, ...code, 0x0b];
  return [...leb(body.length), ...body];
};
