// The clipped PPO surrogate with a KL penalty to the reference policy, over weighted step-wise
// samples (advantages.ts). Pure numbers in, the loss and its gradient with respect to each action
// token's log-probability out; the engine's autograd carries that gradient back into the weights.

export interface TokenLogProbs {
  /** log pi_theta of each action token under the policy being trained. */
  logp: ArrayLike<number>;
  /** log pi_old: the policy that generated the rollout (equal to logp on the first update). */
  oldLogp: ArrayLike<number>;
  /** log pi_ref: the base model with the adapter switched off. */
  refLogp: ArrayLike<number>;
}

export interface LossSample extends TokenLogProbs {
  advantage: number;
  tokenWeight: number;
}

export interface PpoOptions {
  clipLow?: number;
  clipHigh?: number;
  /** Coefficient of the KL penalty (RLM-SPEC: 0.01 in the reference run). */
  beta?: number;
}

export interface PpoLoss {
  /** The quantity minimised: -(surrogate) + beta * KL. */
  loss: number;
  surrogate: number;
  kl: number;
  /** Share of tokens (by weight) whose ratio was clipped. */
  clipFraction: number;
  /** d loss / d logp for every token of every sample, in sample order. */
  gradLogp: Float64Array[];
}

export class LossInputError extends Error {
  override name = 'LossInputError';
}

/**
 * Objective J = sum_tokens w * min(r A, clip(r, 1-eps_low, 1+eps_high) A) - beta * sum_tokens w * KL,
 * r = exp(logp - oldLogp), KL per token by the k3 estimator exp(ref - logp) - (ref - logp) - 1
 * (unbiased, always >= 0). Returns loss = -J.
 */
export function ppoLoss(samples: readonly LossSample[], options: PpoOptions = {}): PpoLoss {
  const clipLow = options.clipLow ?? 0.2;
  const clipHigh = options.clipHigh ?? 0.2;
  const beta = options.beta ?? 0;
  let surrogate = 0;
  let kl = 0;
  let clipped = 0;
  let weight = 0;
  const gradLogp = samples.map((sample, index) => {
    const n = sample.logp.length;
    if (sample.oldLogp.length !== n || sample.refLogp.length !== n) {
      throw new LossInputError(
        `sample ${index}: ${n} log-probs but ${sample.oldLogp.length} old and ${sample.refLogp.length} reference ones`,
      );
    }
    const grad = new Float64Array(n);
    const { advantage: a, tokenWeight: w } = sample;
    for (let t = 0; t < n; t++) {
      // Lengths are checked above, so NaN never reaches the sums.
      const logp = sample.logp[t] ?? Number.NaN;
      const ratio = Math.exp(logp - (sample.oldLogp[t] ?? Number.NaN));
      const bounded = Math.min(Math.max(ratio, 1 - clipLow), 1 + clipHigh);
      const unclippedTerm = ratio * a;
      const clippedTerm = bounded * a;
      // The min picks the clipped branch only where clipping lowers the objective; there the
      // gradient is zero because the bound does not depend on logp.
      const useUnclipped = unclippedTerm <= clippedTerm;
      surrogate += w * (useUnclipped ? unclippedTerm : clippedTerm);
      if (!useUnclipped) clipped += w;
      weight += w;
      const diff = (sample.refLogp[t] ?? Number.NaN) - logp;
      const expDiff = Math.exp(diff);
      kl += w * (expDiff - diff - 1);
      const dSurrogate = useUnclipped ? w * unclippedTerm : 0;
      const dKl = w * (1 - expDiff);
      grad[t] = -dSurrogate + beta * dKl;
    }
    return grad;
  });
  return {
    loss: -surrogate + beta * kl,
    surrogate,
    kl,
    clipFraction: weight === 0 ? 0 : clipped / weight,
    gradLogp,
  };
}

/** Supervised loss for SFT: the mean negative log-likelihood of the response tokens. */
export function nllLoss(logp: readonly ArrayLike<number>[]): {
  loss: number;
  gradLogp: Float64Array[];
} {
  const tokens = logp.reduce((s, x) => s + x.length, 0);
  if (tokens === 0) throw new LossInputError('no response tokens to train on');
  let loss = 0;
  const gradLogp = logp.map((seq) => {
    const grad = new Float64Array(seq.length);
    for (let t = 0; t < seq.length; t++) {
      loss -= (seq[t] ?? 0) / tokens;
      grad[t] = -1 / tokens;
    }
    return grad;
  });
  return { loss, gradLogp };
}
