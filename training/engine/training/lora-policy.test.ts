// LoraPolicy on stories260K: what the RL trainer needs. Response log-probs equal the decoder's,
// the reference ignores the adapters, backward + step raise the trained response's likelihood,
// and a checkpoint (adapters and AdamW moments) resumes exactly.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBackend } from '../kernels/backend.ts';
import { CpuDecoder } from '../decoding/cpu-decoder.ts';
import { loadLocalModel, type LocalModel } from '../loading/local-model.ts';
import { LoraPolicy } from './lora-policy.ts';
import { STORIES260K } from '../loading/stories.test-support.ts';

const dir = mkdtempSync(join(tmpdir(), 'rlm-policy-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});
let local: LocalModel;
beforeAll(async () => {
  await startBackend('wasm');
  local = await loadLocalModel(STORIES260K.checkpoint);
});

const lora = { rank: 4, alpha: 8, targets: ['q_proj', 'v_proj', 'down_proj'] };
const messages = [{ role: 'user' as const, content: 'Tell me about Lily.' }];

describe('LoraPolicy', () => {
  it('scores responses as the decoder does; the reference ignores the adapters', async () => {
    const policy = new LoraPolicy(local, { lora, loraInit: { seed: 3, randomB: true } });
    const turn = policy.encodeTurn(messages, ' Lily went to the park.');
    expect(turn.prompt[0]).toBe(1);
    expect(turn.response.at(-1)).toBe(1); // run.c's end of sequence: the next BOS
    // A reply cut at the token limit never sampled the end token: it is not trained as an action.
    const cut = policy.encodeTurn(messages, ' Lily went to the park.', false);
    expect(cut.response).toEqual(turn.response.slice(0, -1));
    const reference = await policy.score([turn], { reference: true, grad: false });
    const decoder = new CpuDecoder(local.model);
    const seq = [...turn.prompt, ...turn.response];
    const expected: number[] = [];
    for (let t = 0; t < seq.length - 1; t++) {
      const logits = decoder.stepSync([{ slot: 0, token: seq[t] ?? 0, pos: t }]);
      if (t < turn.prompt.length - 1) continue;
      const max = Math.max(...logits);
      const lse = max + Math.log(logits.reduce((a, x) => a + Math.exp(x - max), 0));
      expected.push((logits[seq[t + 1] ?? 0] ?? 0) - lse);
    }
    expect(reference.logp[0]?.length).toBe(turn.response.length);
    reference.logp[0]?.forEach((x, i) => {
      expect(x).toBeCloseTo(expected[i] ?? NaN, 3);
    });
    const adapted = await policy.score([turn], { reference: false, grad: false });
    expect(reference.entropy).toBeNaN();
    // Mean entropy over the response positions: positive, below log(vocab).
    expect(adapted.entropy).toBeGreaterThan(0);
    expect(adapted.entropy).toBeLessThan(Math.log(512));
    expect(adapted.logp[0]?.[0]).not.toBeCloseTo(reference.logp[0]?.[0] ?? NaN, 3);
    policy.dispose();
  });

  it('raises the likelihood of a trained response and resumes from a checkpoint exactly', async () => {
    const policy = new LoraPolicy(local, { lora });
    const turn = policy.encodeTurn(messages, ' The zebra sang a song.');
    const train = async (p: LoraPolicy) => {
      const scored = await p.score([turn], { reference: false, grad: true });
      const n = scored.logp[0]?.length ?? 1;
      await scored.backward([new Float64Array(n).fill(-1 / n)]);
      await p.step({ learningRate: 0.02, maxGradNorm: 1 });
      return scored.logp[0]?.reduce((a, b) => a + b, 0) ?? NaN;
    };
    const first = await train(policy);
    for (let i = 0; i < 5; i++) await train(policy);
    const after = (await policy.score([turn], { reference: false, grad: false })).logp[0];
    expect(after?.reduce((a, b) => a + b, 0)).toBeGreaterThan(first + 1);
    const reference = (await policy.score([turn], { reference: true, grad: false })).logp[0];
    expect(reference?.reduce((a, b) => a + b, 0)).toBeCloseTo(first, 3);
    await policy.saveCheckpoint(join(dir, 'ckpt'));
    const resumed = new LoraPolicy(local, { lora });
    await resumed.loadCheckpoint(join(dir, 'ckpt'));
    await train(policy);
    await train(resumed);
    const a = (await policy.score([turn], { reference: false, grad: false })).logp[0] ?? [];
    const b = (await resumed.score([turn], { reference: false, grad: false })).logp[0] ?? [];
    a.forEach((x, i) => {
      expect(b[i]).toBeCloseTo(x, 5);
    });
    policy.dispose();
    resumed.dispose();
  }, 60_000);
});
