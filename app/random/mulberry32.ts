// mulberry32: a small, fast, seeded generator of numbers in [0, 1). Everything in the project that
// must draw the same numbers on every run (test weights, synthetic runs, a sampled child on a
// resumed step, PCA's start vectors, benchmark inputs) uses this one.
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
