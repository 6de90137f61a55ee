// The sampler that rollouts use (adapters merged into the weights, a LocalProvider over the CPU
// decoder) and the LoraPolicy that trains on them must agree token for token: the same prompt
// window, the reply's tokens recovered from its text, and the same log-probs.
import { describe, expect, it } from 'vitest';
import {
  CpuDecoder,
  initLoraArrays,
  loadLocalModel,
  LoraPolicy,
  mergeLora,
  type ChatTurn,
  type LoraArrays,
} from '../engine/index.ts';
import { STORIES260K } from '../engine/loading/stories.test-support.ts';
import { adaptersOf, policySampler, samplingWindow } from './policy-sampler.ts';

const lora = { rank: 4, alpha: 8, targets: ['wq', 'wk', 'wv', 'wo', 'w1', 'w2', 'w3'] };

/** Adapters with B set too (a fresh LoRA has B = 0 and would merge to the base model). */
function randomAdapters(arrays: LoraArrays): LoraArrays {
  let state = 12345;
  const next = () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return (state / 2 ** 32 - 0.5) * 0.2;
  };
  return {
    layers: arrays.layers.map((layer) =>
      Object.fromEntries(
        Object.entries(layer).map(([name, ab]) => [name, { a: ab.a, b: ab.b.map(() => next()) }]),
      ),
    ),
  };
}

function logSoftmax(logits: Float32Array, offset: number, size: number, index: number): number {
  let max = -Infinity;
  for (let i = 0; i < size; i++) max = Math.max(max, logits[offset + i] ?? -Infinity);
  let sum = 0;
  for (let i = 0; i < size; i++) sum += Math.exp((logits[offset + i] ?? 0) - max);
  return (logits[offset + index] ?? 0) - max - Math.log(sum);
}

describe('the policy sampler and the LoRA policy', () => {
  it('score a sampled reply on the tokens and log-probs it was sampled with', async () => {
    const local = await loadLocalModel(STORIES260K.checkpoint);
    const sampling = { temperature: 0, maxTokens: 24, context: 96 };
    const window = samplingWindow(local, sampling);
    const policy = new LoraPolicy(local, { lora, window });
    try {
      const adapters = randomAdapters(initLoraArrays(local.model.config, lora, { seed: 3 }));
      policy.trainer.setAdapterArrays(adapters);
      const sampler = await policySampler(local, adaptersOf(policy), lora, sampling);
      // Longer than the window: both must keep the same end.
      const messages: ChatTurn[] = [
        {
          role: 'system',
          content: 'Once upon a time there was a little girl named Lily. '.repeat(6),
        },
        { role: 'user', content: 'Tell me about the dog and the ball.' },
      ];
      const reply = await sampler.provider('7').complete({ messages, agentId: '0', turn: 0 });
      const turn = policy.encodeTurn(messages, reply.text);
      expect(turn.prompt.length).toBe(window.context - window.maxNewTokens);
      expect(turn.prompt[0]).toBe(local.tokenizer.bos);

      // Teacher-force prompt + reply through a decoder on the merged weights.
      const decoder = new CpuDecoder(mergeLora(local.model, lora, adapters), {
        maxSeqLen: window.context,
      });
      const sequence = [...turn.prompt, ...turn.response];
      const vocab = local.model.config.vocabSize;
      const greedy: number[] = [];
      const decoderLogp: number[] = [];
      for (let pos = 0; pos < sequence.length - 1; pos++) {
        const logits = await decoder.step([{ slot: 0, token: sequence[pos] ?? 0, pos }]);
        if (pos < turn.prompt.length - 1) continue;
        let best = 0;
        for (let i = 1; i < vocab; i++) if ((logits[i] ?? 0) > (logits[best] ?? 0)) best = i;
        greedy.push(best);
        decoderLogp.push(logSoftmax(logits, 0, vocab, sequence[pos + 1] ?? 0));
      }
      // The reply's tokens, recovered from its text, are the greedy ones the sampler chose (the
      // end token the policy appends was sampled too unless the reply ran out of tokens).
      const sampled = reply.finishReason === 'stop' ? turn.response : turn.response.slice(0, -1);
      expect(sampled).toEqual(greedy.slice(0, sampled.length));
      expect(reply.usage.outputTokens).toBe(turn.response.length - 1);

      const scored = await policy.score([turn], { reference: false, grad: false });
      const trained = Array.from(scored.logp[0] ?? []);
      expect(trained).toHaveLength(turn.response.length);
      trained.forEach((value, t) => {
        expect(value).toBeCloseTo(decoderLogp[t] ?? NaN, 3);
      });
    } finally {
      policy.dispose();
    }
  }, 120_000);

  it('scores a reply sampled at temperature 0.7 under softmax(logits / 0.7), as GRPO needs', async () => {
    const local = await loadLocalModel(STORIES260K.checkpoint);
    const sampling = { temperature: 0.7, maxTokens: 16, context: 96 };
    const policy = new LoraPolicy(local, { lora, window: samplingWindow(local, sampling) });
    try {
      const adapters = randomAdapters(initLoraArrays(local.model.config, lora, { seed: 5 }));
      policy.trainer.setAdapterArrays(adapters);
      const sampler = await policySampler(local, adaptersOf(policy), lora, sampling);
      const messages: ChatTurn[] = [{ role: 'user', content: 'The dog ran to the park and' }];
      const reply = await sampler.provider('11').complete({ messages, agentId: '0', turn: 0 });
      const turn = policy.encodeTurn(messages, reply.text, reply.finishReason === 'stop');
      const sequence = [...turn.prompt, ...turn.response];
      const vocab = local.model.config.vocabSize;
      // Teacher-forced log-probs of the reply, with and without the adapters, at T = 0.7 and 1.
      const forced = async (weights: typeof local.model, temperature: number) => {
        const decoder = new CpuDecoder(weights, { maxSeqLen: sampling.context });
        const out: number[] = [];
        for (let pos = 0; pos < sequence.length - 1; pos++) {
          const logits = await decoder.step([{ slot: 0, token: sequence[pos] ?? 0, pos }]);
          if (pos < turn.prompt.length - 1) continue;
          const scaled = Float32Array.from(logits.subarray(0, vocab), (l) => l / temperature);
          out.push(logSoftmax(scaled, 0, vocab, sequence[pos + 1] ?? 0));
        }
        return out;
      };
      const merged = mergeLora(local.model, lora, adapters);
      const tempered = await forced(merged, 0.7);
      const plain = await forced(merged, 1);
      const reference = await forced(local.model, 0.7);

      const scored = await policy.score([turn], { reference: false, grad: true, temperature: 0.7 });
      const logp = Array.from(scored.logp[0] ?? []);
      expect(logp).toHaveLength(turn.response.length);
      logp.forEach((value, t) => {
        expect(value).toBeCloseTo(tempered[t] ?? NaN, 3);
      });
      expect(
        Math.max(...logp.map((value, t) => Math.abs(value - (plain[t] ?? 0)))),
      ).toBeGreaterThan(0.01);
      const anchor = await policy.score([turn], { reference: true, grad: false, temperature: 0.7 });
      Array.from(anchor.logp[0] ?? []).forEach((value, t) => {
        expect(value).toBeCloseTo(reference[t] ?? NaN, 3);
      });
      // The backward pass differentiates the same tempered log-probs.
      const start = turn.prompt.length - 1;
      const weights = Array.from({ length: sequence.length - 1 }, (_, t) => (t >= start ? 1 : 0));
      const value = await policy.trainer.accumulate([sequence], [weights], { temperature: 0.7 });
      expect(value).toBeCloseTo(
        logp.reduce((sum, v) => sum + v, 0),
        2,
      );
      await expect(
        policy.score([turn], { reference: false, grad: false, temperature: 0 }),
      ).rejects.toThrow(/temperature above 0/);
    } finally {
      policy.dispose();
    }
  }, 120_000);

  it('samples each rollout seed differently and repeats a seed exactly', async () => {
    const local = await loadLocalModel(STORIES260K.checkpoint);
    const policy = new LoraPolicy(local, { lora });
    try {
      const sampler = await policySampler(local, adaptersOf(policy), lora, {
        temperature: 1,
        maxTokens: 12,
      });
      const messages: ChatTurn[] = [{ role: 'user', content: 'Once upon a time' }];
      const say = (target: string) =>
        sampler.provider(target).complete({ messages, agentId: '0', turn: 0 });
      const texts = await Promise.all(['1', '2', '3', '4', '1'].map(say));
      expect(new Set(texts.slice(0, 4).map((t) => t.text)).size).toBeGreaterThan(1);
      expect(texts[4]?.text).toBe(texts[0]?.text);
      expect(() => sampler.provider('x')).toThrow(/names no rollout seed/);
    } finally {
      policy.dispose();
    }
  }, 120_000);
});
