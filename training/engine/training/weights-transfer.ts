// Device weights back to host DecoderWeights (after full fine-tuning), undoing the [in, out]
// transposition of the linears.
import type { numpy as np } from '@jax-js/jax';
import type { JaxWeights } from '../decoding/jax-decoder.ts';
import type { DecoderConfig } from '../loading/model-config.ts';
import type { DecoderModel, LayerWeights } from '../loading/weights.ts';

async function host(a: np.Array): Promise<Float32Array> {
  return Float32Array.from((await a.ref.data()) as ArrayLike<number>);
}

async function hostLinear(a: np.Array): Promise<Float32Array> {
  return host(a.ref.transpose());
}

export async function downloadWeights(config: DecoderConfig, w: JaxWeights): Promise<DecoderModel> {
  const layers: LayerWeights[] = [];
  for (const l of w.layers) {
    const optional = async (a: np.Array | undefined) => (a ? host(a) : null);
    layers.push({
      attnNorm: await host(l.attnNorm),
      wq: await hostLinear(l.wq),
      wk: await hostLinear(l.wk),
      wv: await hostLinear(l.wv),
      wo: await hostLinear(l.wo),
      bq: await optional(l.bq),
      bk: await optional(l.bk),
      bv: await optional(l.bv),
      qNorm: await optional(l.qNorm),
      kNorm: await optional(l.kNorm),
      ffnNorm: await host(l.ffnNorm),
      w1: await hostLinear(l.w1),
      w2: await hostLinear(l.w2),
      w3: await hostLinear(l.w3),
    });
  }
  const tokenEmbedding = await host(w.tokenEmbedding);
  return {
    config,
    weights: {
      tokenEmbedding,
      layers,
      finalNorm: await host(w.finalNorm),
      lmHead: await hostLinear(w.lmHead),
    },
  };
}
