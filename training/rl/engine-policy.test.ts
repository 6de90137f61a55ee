// The trainer's policy on the real stories260K checkpoint (wasm/CPU jax-js): turns tokenised as
// the model sees them, reference = adapter off, SFT raising the response's likelihood, checkpoints.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadLocalModel, type LocalModel } from '../engine/index.ts';
import { STORIES260K } from '../engine/stories.test-support.ts';
import { EnginePolicy } from './engine-policy.ts';
import { runSftJob } from './sft.ts';

let local: LocalModel;
let dir: string;
beforeAll(async () => {
  local = await loadLocalModel(STORIES260K.checkpoint, { tokenizer: STORIES260K.tokenizer });
  dir = await mkdtemp(join(tmpdir(), 'rlm-engine-policy-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const options = { lora: { rank: 4, alpha: 8, targets: ['wq', 'wv', 'wo'] }, learningRate: 0.02 };
const messages = [{ role: 'user' as const, content: 'Tell a story.' }];
const sum = (values: Float64Array | undefined) =>
  (values ?? new Float64Array()).reduce((s, v) => s + v, 0);

describe('EnginePolicy', () => {
  it('tokenises a turn as the prompt the model saw and the response it wrote', () => {
    const policy = new EnginePolicy(local, options);
    const turn = policy.encodeTurn(messages, ' Once upon a time there was a cat.');
    const whole = local.tokenizer.encode(
      `${local.formatChat(messages)} Once upon a time there was a cat.`,
      {
        addBos: true,
      },
    );
    expect([...turn.prompt, ...turn.response]).toEqual(whole);
    expect(turn.response.length).toBeGreaterThan(3);
    policy.dispose();
  });

  it('learns a response by SFT while the reference stays the base model, and checkpoints it', async () => {
    const policy = new EnginePolicy(local, options);
    const turn = policy.encodeTurn(messages, ' Once upon a time there was a cat.');
    const before = await policy.score([turn], { reference: false, grad: false });
    const reference = await policy.score([turn], { reference: true, grad: false });
    expect(sum(before.logp[0])).toBeCloseTo(sum(reference.logp[0]), 4);
    expect(before.logp[0]?.length).toBe(turn.response.length);

    await runSftJob({
      policy,
      turns: [turn],
      epochs: 8,
      batchSize: 1,
      learningRate: 0.02,
      dir: join(dir, 'sft'),
    });
    const after = await policy.score([turn], { reference: false, grad: false });
    const referenceAfter = await policy.score([turn], { reference: true, grad: false });
    expect(sum(after.logp[0])).toBeGreaterThan(sum(before.logp[0]) + 1);
    expect(sum(referenceAfter.logp[0])).toBeCloseTo(sum(reference.logp[0]), 4);

    await policy.saveCheckpoint(join(dir, 'ckpt'));
    const reloaded = new EnginePolicy(local, options);
    await reloaded.loadCheckpoint(join(dir, 'ckpt'));
    const again = await reloaded.score([turn], { reference: false, grad: false });
    expect(sum(again.logp[0])).toBeCloseTo(sum(after.logp[0]), 3);
    policy.dispose();
    reloaded.dispose();
  }, 120_000);
});
