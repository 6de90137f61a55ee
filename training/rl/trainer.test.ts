import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { StepMetrics } from '../../app/api/index.ts';
import { JobFiles } from './job-files.ts';
import { sftStepLine } from './sft.ts';
import {
  TablePolicy,
  toyEnvironment,
  toyQuestions,
  toyValidationQuestions,
  type ToyQuestion,
} from './toy-task.ts';
import { batchFor, runGrpoJob, TrainingInputError, type TrainJobOptions } from './trainer.ts';

const questions = toyQuestions;

function job(
  policy: TablePolicy,
  dir: string,
  overrides: Partial<TrainJobOptions<ToyQuestion>['config']> = {},
) {
  const config = {
    groupSize: 8,
    batchSize: 2,
    learningRate: 4,
    beta: 0,
    clipLow: 0.2,
    clipHigh: 0.2,
    weighting: 'subtree-mean' as const,
    seed: 7,
    temperature: 1,
    steps: 30,
    checkpointEvery: 5,
    ...overrides,
  };
  return { policy, questions, dir, config, ...toyEnvironment(policy) };
}

// Everything but the clock's readings.
const figures = (m: StepMetrics) => ({
  ...m,
  at: 0,
  elapsedMs: 0,
  tokensPerSecond: 0,
  rolloutSeconds: 0,
  rewardSeconds: 0,
  backwardSeconds: 0,
  optimizerSeconds: 0,
  validationSeconds: 0,
});
const rolloutSteps = async (jobDir: string) =>
  (await readdir(join(jobDir, 'rollouts'))).filter((n) => n.endsWith('.jsonl')).sort();

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rlm-train-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('runGrpoJob', () => {
  it('raises the reward of a policy that starts at chance', async () => {
    const policy = new TablePolicy('xyzab');
    const before = policy.probabilities(policy.id('x'))[policy.id('a')] ?? 0;
    expect(before).toBeCloseTo(0.2, 12);
    const result = await runGrpoJob(job(policy, dir));
    expect(result.steps).toBe(30);
    expect(policy.probabilities(policy.id('x'))[policy.id('a')]).toBeGreaterThan(0.9);
    expect(policy.probabilities(policy.id('y'))[policy.id('b')]).toBeGreaterThan(0.9);
    const early = result.metrics.slice(0, 3).reduce((s, m) => s + (m.rewardMean ?? 0), 0) / 3;
    const late = result.metrics.slice(-3).reduce((s, m) => s + (m.rewardMean ?? 0), 0) / 3;
    expect(late - early).toBeGreaterThan(0.5);
    const first = result.metrics[0];
    expect(first?.groups.map((g) => g.questionId).sort()).toEqual(['toy-x', 'toy-y']);
    expect(first?.groups[0]?.rollouts).toHaveLength(8);
    expect(first?.turnsPerRollout).toBe(2);
    expect(first?.childrenPerRollout).toBe(1);
    // Advantages in a logged group are GRPO's: mean zero whenever the rewards differ.
    for (const group of first?.groups ?? []) {
      const sum = group.rollouts.reduce((s, r) => s + r.advantage, 0);
      expect(Math.abs(sum)).toBeLessThan(1e-9);
    }
  });

  it('scores and differentiates turns at the temperature they were sampled at', async () => {
    const policy = new TablePolicy('xyzab');
    const x = policy.id('x');
    const a = policy.id('a');
    policy.delta[x] = Float64Array.of(0.3, -0.2, 0.1, 0.4, -0.5);
    const logpAt = (temperature: number) =>
      Math.log(policy.probabilities(x, false, temperature)[a] ?? 0);
    const turn = { prompt: [x], response: [a] };
    const scored = await policy.score([turn], { reference: false, grad: true, temperature: 0.5 });
    expect(scored.logp[0]?.[0]).toBeCloseTo(logpAt(0.5), 12);
    expect(Math.abs(logpAt(0.5) - logpAt(1))).toBeGreaterThan(0.05);
    // Central differences of log p_0.5(a | x) against the delta row the backward pass fills.
    const row = policy.delta[x];
    const numeric = Array.from(row, (value, j) => {
      row[j] = value + 1e-6;
      const up = logpAt(0.5);
      row[j] = value - 1e-6;
      const down = logpAt(0.5);
      row[j] = value;
      return (up - down) / 2e-6;
    });
    const before = Float64Array.from(row);
    await scored.backward([Float64Array.of(1)]);
    await policy.step({ learningRate: 1, maxGradNorm: Infinity });
    // step() moves delta by -gradient, so the gradient is before - after.
    Array.from(policy.delta[x] ?? [], (after, j) => (before[j] ?? 0) - after).forEach((g, j) => {
      expect(g).toBeCloseTo(numeric[j] ?? NaN, 6);
    });
  });

  it('raises the reward when rollouts are sampled at temperature 0.5', async () => {
    const policy = new TablePolicy('xyzab');
    const temperatures = new Set<number | undefined>();
    const score = policy.score.bind(policy);
    policy.score = (turns, options) => {
      temperatures.add(options.temperature);
      return score(turns, options);
    };
    const result = await runGrpoJob({
      ...job(policy, dir, { temperature: 0.5 }),
      ...toyEnvironment(policy, 0.5),
    });
    expect(result.metrics[0]?.rewardMean).toBeLessThan(0.5);
    const late = result.metrics.slice(-3).reduce((s, m) => s + (m.rewardMean ?? 0), 0) / 3;
    expect(late).toBeGreaterThan(0.9);
    expect(policy.probabilities(policy.id('x'), false, 0.5)[policy.id('a')]).toBeGreaterThan(0.9);
    // Every turn was scored at the temperature its rollout was sampled at.
    expect([...temperatures]).toEqual([0.5]);
  });

  it('keeps the policy near the reference when beta is large, and logs the KL', async () => {
    const free = new TablePolicy('xyzab');
    await runGrpoJob(job(free, join(dir, 'free'), { steps: 10 }));
    const anchored = new TablePolicy('xyzab');
    const result = await runGrpoJob(job(anchored, join(dir, 'anchored'), { steps: 10, beta: 2 }));
    const p = (policy: TablePolicy) => policy.probabilities(policy.id('x'))[policy.id('a')] ?? 0;
    expect(p(anchored)).toBeLessThan(p(free));
    expect(result.metrics.at(-1)?.kl).toBeGreaterThan(0);
  });

  it('resumes a killed job from its last checkpoint with the same history and outcome', async () => {
    const straight = await runGrpoJob(
      job(new TablePolicy('xyzab'), join(dir, 'straight'), { steps: 12 }),
    );

    const killedDir = join(dir, 'killed');
    const policy = new TablePolicy('xyzab');
    const crashing = job(policy, killedDir, { steps: 12 });
    const rollout = crashing.rollout;
    crashing.rollout = (question, request) => {
      if (request.step === 8) throw new Error('killed');
      return rollout(question, request);
    };
    await expect(runGrpoJob(crashing)).rejects.toThrow('killed');
    expect((await new JobFiles(killedDir).readState())?.step).toBe(5);
    expect(await rolloutSteps(killedDir)).toHaveLength(7);
    expect((await new JobFiles(killedDir).readMetrics()).map((m) => m.step)).toEqual([
      1, 2, 3, 4, 5, 6, 7,
    ]);

    // A fresh process: a new policy object, loaded from the checkpoint.
    const resumed = await runGrpoJob(job(new TablePolicy('xyzab'), killedDir, { steps: 12 }));
    expect(resumed.resumedFrom).toBe(5);
    expect(resumed.metrics.map(figures)).toEqual(straight.metrics.map(figures));
    const onDisk = (await readFile(join(killedDir, 'metrics.jsonl'), 'utf8')).trim().split('\n');
    expect(onDisk).toHaveLength(12);
    // The steps run again wrote their rollouts again, as the uninterrupted job did.
    expect(await rolloutSteps(killedDir)).toEqual(await rolloutSteps(join(dir, 'straight')));
    const step6 = 'rollouts/step-000006.jsonl';
    expect(await readFile(join(killedDir, step6), 'utf8')).toBe(
      await readFile(join(dir, 'straight', step6), 'utf8'),
    );
  });

  it('pauses at a step boundary with a checkpoint, and goes on from there', async () => {
    const controller = new AbortController();
    const paused = job(new TablePolicy('xyzab'), dir, { steps: 10, checkpointEvery: 100 });
    const result = await runGrpoJob({
      ...paused,
      signal: controller.signal,
      onStep: (m) => {
        if (m.step === 3) controller.abort();
      },
    });
    expect(result).toMatchObject({ steps: 3, stopped: true });
    expect((await new JobFiles(dir).readState())?.step).toBe(3);
    const rest = await runGrpoJob(
      job(new TablePolicy('xyzab'), dir, { steps: 10, checkpointEvery: 100 }),
    );
    expect(rest.resumedFrom).toBe(3);
    expect(rest.metrics.map((m) => m.step)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  it("goes on from SFT's clock: the first GRPO step comes after the last SFT step in time", async () => {
    const files = new JobFiles(dir);
    const sftLine = (step: number) =>
      sftStepLine({
        step,
        at: 1_000 * step,
        elapsedMs: 60_000 * step,
        loss: 1,
        gradNorm: 1,
        tokensPerSecond: 1,
        entropy: null,
      });
    await files.appendMetrics(sftLine(1));
    await files.appendMetrics(sftLine(2));
    const { metrics } = await runGrpoJob(job(new TablePolicy('xyzab'), dir, { steps: 2 }));
    expect(metrics.map((m) => m.step)).toEqual([1, 2]);
    expect(metrics[0]?.elapsedMs).toBeGreaterThanOrEqual(120_000);
    expect((await files.readMetrics()).map((m) => `${m.phase}${String(m.step)}`)).toEqual([
      'sft1',
      'sft2',
      'grpo1',
      'grpo2',
    ]);
  });

  it('validates every N steps and on the last: pass@k and the reward rise, nothing is trained', async () => {
    const policy = new TablePolicy('xyzab');
    const seen: { step: number; validation: boolean }[] = [];
    const base = job(policy, dir, { steps: 12, validation: { every: 5, k: 4, count: 2 } });
    const result = await runGrpoJob({
      ...base,
      validationQuestions: toyValidationQuestions,
      rollout: (question, request) => {
        seen.push({ step: request.step, validation: request.validation === true });
        return base.rollout(question, request);
      },
    });
    const validated = result.metrics.filter((m) => m.passAtK != null).map((m) => m.step);
    expect(validated).toEqual([5, 10, 12]);
    // k = 4 samples of each of the 2 held-out questions on those steps, flagged as validation.
    expect(seen.filter((s) => s.validation).map((s) => s.step)).toEqual([
      ...Array<number>(8).fill(5),
      ...Array<number>(8).fill(10),
      ...Array<number>(8).fill(12),
    ]);
    const last = result.metrics.at(-1);
    expect(last?.passAtK).toBe(1);
    expect(last?.validationRewardMean).toBeGreaterThan(0.8);
    expect(last?.validationSeconds).toBeGreaterThanOrEqual(0);
    // The held-out questions are never in a training group.
    const trainedOn = new Set(result.metrics.flatMap((m) => m.groups.map((g) => g.questionId)));
    expect([...trainedOn].sort()).toEqual(['toy-x', 'toy-y']);
  });

  it('holds the set’s last questions out when no validation questions are given', async () => {
    const many = ['p', 'q', 'r', 's'].map((id) => ({ id, context: 'x', good: 'a' }));
    const policy = new TablePolicy('xyzab');
    const result = await runGrpoJob({
      ...job(policy, dir, { steps: 2, validation: { every: 1, k: 2, count: 1 } }),
      questions: many,
    });
    const trainedOn = new Set(result.metrics.flatMap((m) => m.groups.map((g) => g.questionId)));
    expect([...trainedOn].sort()).toEqual(['p', 'q', 'r']);
    expect(result.metrics.map((m) => typeof m.passAtK)).toEqual(['number', 'number']);
    await expect(
      runGrpoJob({
        ...job(policy, join(dir, 'small'), { steps: 1, validation: { every: 1, k: 2, count: 4 } }),
        questions: many,
      }),
    ).rejects.toThrow(/validation holds out 4 questions but the set has 4/);
  });

  it('refuses an empty training set', async () => {
    await expect(
      runGrpoJob({ ...job(new TablePolicy('xyzab'), dir), questions: [] }),
    ).rejects.toThrow(TrainingInputError);
  });
});

describe('batchFor', () => {
  it('visits every question once per epoch, in a seeded order', () => {
    const set = ['a', 'b', 'c', 'd', 'e'];
    const epoch = [1, 2, 3, 4, 5].flatMap((step) => batchFor(set, { batchSize: 1, seed: 3 }, step));
    expect([...epoch].sort()).toEqual(set);
    expect(
      [1, 2, 3, 4, 5].flatMap((step) => batchFor(set, { batchSize: 1, seed: 3 }, step)),
    ).toEqual(epoch);
  });
});
