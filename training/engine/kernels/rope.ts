// Rotary position tables: inverse frequencies (with the Llama 3, linear and YaRN stretches of
// Hugging Face's rope_scaling) and cos/sin per position, computed in float64 and stored as float32.
import type { DecoderConfig, RopeScaling } from '../loading/model-config.ts';

export function inverseFrequencies(
  headDim: number,
  theta: number,
  scaling: RopeScaling,
): Float64Array {
  const half = headDim / 2;
  const base = new Float64Array(half);
  for (let j = 0; j < half; j++) base[j] = 1 / Math.pow(theta, (2 * j) / headDim);
  switch (scaling.kind) {
    case 'none':
      return base;
    case 'linear':
      return base.map((f) => f / scaling.factor);
    case 'llama3': {
      const { factor, lowFreqFactor, highFreqFactor, originalMaxPositions } = scaling;
      const lowWavelen = originalMaxPositions / lowFreqFactor;
      const highWavelen = originalMaxPositions / highFreqFactor;
      return base.map((f) => {
        const wavelen = (2 * Math.PI) / f;
        if (wavelen < highWavelen) return f;
        if (wavelen > lowWavelen) return f / factor;
        const smooth =
          (originalMaxPositions / wavelen - lowFreqFactor) / (highFreqFactor - lowFreqFactor);
        return (1 - smooth) * (f / factor) + smooth * f;
      });
    }
    case 'yarn': {
      // Hugging Face's _compute_yarn_parameters: blend interpolated and extrapolated frequencies
      // with a linear ramp between the dimensions whose rotations fit beta_fast and beta_slow times.
      const { factor, originalMaxPositions, betaFast, betaSlow } = scaling;
      const correctionDim = (rotations: number): number =>
        (headDim * Math.log(originalMaxPositions / (rotations * 2 * Math.PI))) /
        (2 * Math.log(theta));
      const low = Math.max(Math.floor(correctionDim(betaFast)), 0);
      const high = Math.min(Math.ceil(correctionDim(betaSlow)), headDim - 1);
      const span = low === high ? high + 0.001 - low : high - low;
      return base.map((f, j) => {
        const ramp = Math.min(Math.max((j - low) / span, 0), 1);
        const extrapolationWeight = 1 - ramp;
        return (f / factor) * (1 - extrapolationWeight) + f * extrapolationWeight;
      });
    }
  }
}

export interface RopeTables {
  /** [maxSeqLen, rotaryDim/2]: rotaryDim is headDim unless the model rotates part of a head. */
  cos: Float32Array | Float64Array;
  sin: Float32Array | Float64Array;
  half: number;
}

/** float32 tables follow llama2.c's float32 angle; float64 ones are exact (gradient checks). */
export function ropeTables(
  config: DecoderConfig,
  maxSeqLen: number,
  precision: 'f32' | 'f64' = 'f32',
): RopeTables {
  // Qwen3.5 rotates only the first rotaryDim of each head (partial_rotary_factor); its
  // multi-section rotary gives every section the same angle for text positions, so it is this.
  const rotaryDim = config.hybrid?.rotaryDim ?? config.headDim;
  const half = rotaryDim / 2;
  const inv = inverseFrequencies(rotaryDim, config.ropeTheta, config.ropeScaling);
  const scale = config.ropeScaling.kind === 'yarn' ? config.ropeScaling.attentionFactor : 1;
  const exact = precision === 'f64';
  const cos = exact ? new Float64Array(maxSeqLen * half) : new Float32Array(maxSeqLen * half);
  const sin = exact ? new Float64Array(maxSeqLen * half) : new Float32Array(maxSeqLen * half);
  for (let pos = 0; pos < maxSeqLen; pos++) {
    for (let j = 0; j < half; j++) {
      // llama2.c computes pos * freq in float32; doing the same keeps greedy outputs identical.
      const angle = exact ? pos * (inv[j] ?? 0) : Math.fround(pos * Math.fround(inv[j] ?? 0));
      cos[pos * half + j] = Math.cos(angle) * scale;
      sin[pos * half + j] = Math.sin(angle) * scale;
    }
  }
  return { cos, sin, half };
}

/** Rotates `heads` heads of `vec` (at `offset`) in place for position `pos`. */
export function applyRope(
  vec: Float32Array,
  offset: number,
  heads: number,
  headDim: number,
  pos: number,
  tables: RopeTables,
  style: DecoderConfig['ropeStyle'],
): void {
  const { cos, sin, half } = tables;
  const row = pos * half;
  for (let h = 0; h < heads; h++) {
    const base = offset + h * headDim;
    for (let j = 0; j < half; j++) {
      const c = cos[row + j] ?? 0;
      const s = sin[row + j] ?? 0;
      const i0 = style === 'interleaved' ? base + 2 * j : base + j;
      const i1 = style === 'interleaved' ? i0 + 1 : i0 + half;
      const a = vec[i0] ?? 0;
      const b = vec[i1] ?? 0;
      vec[i0] = a * c - b * s;
      vec[i1] = a * s + b * c;
    }
  }
}
