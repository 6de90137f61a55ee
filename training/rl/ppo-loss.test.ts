import { describe, expect, it } from 'vitest';
import { LossInputError, nllLoss, ppoLoss, type LossSample } from './ppo-loss.ts';

const sample = (
  advantage: number,
  tokenWeight: number,
  logp: number[],
  oldLogp: number[] = logp,
  refLogp: number[] = logp,
): LossSample => ({ advantage, tokenWeight, logp, oldLogp, refLogp });

describe('ppoLoss', () => {
  it('is -w r A on the first update, where the ratio is 1', () => {
    const result = ppoLoss([sample(2, 0.5, [-1, -2]), sample(-1, 0.25, [-0.5])]);
    expect(result.surrogate).toBeCloseTo(2 * 0.5 * 2 - 0.25, 15);
    expect(result.loss).toBeCloseTo(-1.75, 15);
    expect(result.kl).toBe(0);
    expect(result.clipFraction).toBe(0);
    expect(Array.from(result.gradLogp[0] ?? [])).toEqual([-1, -1]);
    expect(Array.from(result.gradLogp[1] ?? [])).toEqual([0.25]);
  });

  it('clips the ratio only where clipping lowers the objective', () => {
    const up = Math.log(1.5);
    const down = Math.log(0.5);
    const result = ppoLoss([
      sample(1, 1, [up], [0]), // r=1.5, A>0: clipped at 1.2, no gradient
      sample(-1, 1, [down], [0]), // r=0.5, A<0: clipped at 0.8, no gradient
      sample(-1, 1, [up], [0]), // r=1.5, A<0: the unclipped -1.5 is lower, so it stays
      sample(1, 1, [down], [0]), // r=0.5, A>0: the unclipped 0.5 is lower, so it stays
    ]);
    expect(result.surrogate).toBeCloseTo(1.2 - 0.8 - 1.5 + 0.5, 12);
    // d(-w r A)/d logp = -w r A where the unclipped branch is kept.
    expect(result.gradLogp.map((g) => g[0])).toEqual([0, 0, 1.5, -0.5]);
    expect(result.clipFraction).toBe(0.5);
  });

  it('penalises distance from the reference policy with the k3 estimator', () => {
    const result = ppoLoss([sample(0, 1, [-1], [-1], [-1.5])], { beta: 0.1 });
    const diff = -0.5;
    expect(result.kl).toBeCloseTo(Math.exp(diff) - diff - 1, 15);
    expect(result.kl).toBeGreaterThan(0);
    expect(result.loss).toBeCloseTo(0.1 * result.kl, 15);
  });

  it('has the gradient that finite differences give', () => {
    const base = [
      sample(0.7, 0.3, [-1.1, -0.2, -2.5], [-1.0, -0.5, -2.4], [-1.3, -0.1, -2.0]),
      sample(-1.2, 0.05, [-0.3, -3.0], [-0.35, -2.0], [-0.2, -3.3]),
    ];
    const options = { beta: 0.05, clipLow: 0.2, clipHigh: 0.28 };
    const { gradLogp } = ppoLoss(base, options);
    const h = 1e-6;
    base.forEach((s, i) => {
      for (let t = 0; t < s.logp.length; t++) {
        const shifted = (delta: number) =>
          base.map((x, j) =>
            j === i
              ? { ...x, logp: (x.logp as number[]).map((v, u) => (u === t ? v + delta : v)) }
              : x,
          );
        const numeric =
          (ppoLoss(shifted(h), options).loss - ppoLoss(shifted(-h), options).loss) / (2 * h);
        expect(gradLogp[i]?.[t]).toBeCloseTo(numeric, 7);
      }
    });
  });

  it('refuses log-prob arrays of different lengths', () => {
    expect(() => ppoLoss([sample(1, 1, [-1, -2], [-1])])).toThrow(LossInputError);
  });
});

describe('nllLoss', () => {
  it('is the mean negative log-likelihood over all response tokens', () => {
    const { loss, gradLogp } = nllLoss([[-1, -2], [-3]]);
    expect(loss).toBeCloseTo(2, 15);
    expect(Array.from(gradLogp[1] ?? [])).toEqual([-1 / 3]);
    expect(() => nllLoss([[]])).toThrow(/no response tokens/);
  });
});
