// Device weights back to host DecoderWeights (after full fine-tuning), undoing the [in, out]
// transposition of the linears.
import type { numpy as np } from '@jax-js/jax';
import { weightOf, type JaxLayer, type JaxWeights } from '../kernels/jax-weights.ts';
import type { DecoderConfig } from '../loading/model-config.ts';
import {
  noAttention,
  type DecoderModel,
  type LayerWeights,
  type LinearName,
} from '../loading/weights.ts';

async function host(a: np.Array): Promise<Float32Array> {
  return Float32Array.from((await a.ref.data()) as ArrayLike<number>);
}

async function hostLinear(l: JaxLayer, name: LinearName): Promise<Float32Array> {
  return host(weightOf(l, name).ref.transpose());
}

export async function downloadWeights(config: DecoderConfig, w: JaxWeights): Promise<DecoderModel> {
  const layers: LayerWeights[] = [];
  for (const l of w.layers) {
    const optional = async (a: np.Array | undefined) => (a ? host(a) : null);
    const mlp = {
      attnNorm: await host(l.attnNorm),
      ffnNorm: await host(l.ffnNorm),
      w1: await hostLinear(l, 'w1'),
      w2: await hostLinear(l, 'w2'),
      w3: await hostLinear(l, 'w3'),
    };
    if (l.conv && l.aLog && l.dtBias && l.deltaNorm) {
      layers.push({
        ...mlp,
        ...noAttention(),
        deltaNet: {
          inQkv: await hostLinear(l, 'inQkv'),
          inZ: await hostLinear(l, 'inZ'),
          inB: await hostLinear(l, 'inB'),
          inA: await hostLinear(l, 'inA'),
          conv: await host(l.conv),
          aLog: await host(l.aLog),
          dtBias: await host(l.dtBias),
          norm: await host(l.deltaNorm),
          out: await hostLinear(l, 'out'),
        },
      });
      continue;
    }
    layers.push({
      ...mlp,
      wq: await hostLinear(l, 'wq'),
      wk: await hostLinear(l, 'wk'),
      wv: await hostLinear(l, 'wv'),
      wo: await hostLinear(l, 'wo'),
      bq: await optional(l.bq),
      bk: await optional(l.bk),
      bv: await optional(l.bv),
      qNorm: await optional(l.qNorm),
      kNorm: await optional(l.kNorm),
    });
  }
  const tokenEmbedding = await host(w.tokenEmbedding);
  return {
    config,
    weights: {
      tokenEmbedding,
      layers,
      finalNorm: await host(w.finalNorm),
      lmHead: await host(w.lmHead.ref.transpose()),
    },
  };
}
