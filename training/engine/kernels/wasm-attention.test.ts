// The attention kernels against plain JS: dot products of a query with cached keys `stride` apart
// and the attention-weighted sum of cached values, at a head's offset inside wider cache rows.
import { describe, expect, it } from 'vitest';
import { WasmArena } from './wasm-matvec.ts';

describe('WebAssembly attention kernels', () => {
  const arena = WasmArena.create(1 << 16);
  if (!arena) throw new Error('WebAssembly SIMD is unavailable');
  const d = 12;
  const kvDim = 3 * d;
  const n = 7;
  const head = 2; // the third head of each cache row
  const cache = arena.alloc(n * kvDim);
  cache.forEach((_, i) => (cache[i] = Math.sin(i * 0.37)));
  const q = arena.alloc(d);
  q.forEach((_, i) => (q[i] = Math.cos(i * 1.3)));

  it('dots: q . k_t for every cached position', () => {
    const out = arena.alloc(n);
    arena.attention.dots(
      out.byteOffset,
      q.byteOffset,
      cache.byteOffset + head * d * 4,
      n,
      d,
      kvDim * 4,
    );
    for (let t = 0; t < n; t++) {
      let expected = 0;
      for (let i = 0; i < d; i++) expected += (q[i] ?? 0) * (cache[t * kvDim + head * d + i] ?? 0);
      expect(out[t]).toBeCloseTo(expected, 5);
    }
  });

  it('weighted: sum_t a_t v_t, overwriting what the output held', () => {
    const a = arena.alloc(n);
    a.forEach((_, t) => (a[t] = (t + 1) / 28));
    const out = arena.alloc(d).fill(99);
    arena.attention.weighted(
      out.byteOffset,
      a.byteOffset,
      cache.byteOffset + head * d * 4,
      n,
      d,
      kvDim * 4,
    );
    for (let i = 0; i < d; i++) {
      let expected = 0;
      for (let t = 0; t < n; t++) expected += (a[t] ?? 0) * (cache[t * kvDim + head * d + i] ?? 0);
      expect(out[i]).toBeCloseTo(expected, 5);
    }
  });
});
