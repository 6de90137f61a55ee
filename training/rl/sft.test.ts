import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '../../app/api/index.ts';
import { JobFiles } from './job-files.ts';
import { runSftJob, selectSftTurns, sftStepCount, shuffled } from './sft.ts';
import { TablePolicy, toyRun } from './toy-task.ts';
import { TrainingInputError } from './trainer.ts';

const replError: RunEvent = {
  kind: 'repl.output',
  at: 0,
  agentId: '0',
  turn: 0,
  block: 0,
  stdout: '',
  stderr: '',
  error: { type: 'NameError', message: "name 'x' is not defined" },
  durationMs: 1,
  variables: [],
};

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rlm-sft-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('cold-start SFT', () => {
  it('keeps clean teacher runs with span F1 above 0 and says why it drops the others', () => {
    const policy = new TablePolicy('xyzab');
    const selection = selectSftTurns(
      [
        {
          runId: 'good',
          events: toyRun('q x', 'a', { prompt: 'sub y', answer: 'b' }),
          spanF1: 0.8,
        },
        { runId: 'error', events: [replError, ...toyRun('q x', 'a')], spanF1: 1 },
        { runId: 'wrong', events: toyRun('q x', 'b'), spanF1: 0 },
      ],
      policy,
    );
    expect(selection.accepted).toEqual(['good']);
    expect(selection.rejected).toEqual([
      { runId: 'error', reason: 'REPL error in agent 0 turn 0: NameError' },
      { runId: 'wrong', reason: 'span F1 is 0, not above 0' },
    ]);
    // Root and child turns both: loss only on the responses, given their prompts.
    expect(selection.turns).toEqual([
      { prompt: [policy.id('x')], response: [policy.id('a')] },
      { prompt: [policy.id('y')], response: [policy.id('b')] },
    ]);
  });

  it('teaches the teacher’s answers and logs each step', async () => {
    const policy = new TablePolicy('xyzab');
    const { turns } = selectSftTurns(
      [{ runId: 't', events: toyRun('q x', 'a', { prompt: 'sub y', answer: 'b' }), spanF1: 1 }],
      policy,
    );
    const metrics = await runSftJob({
      policy,
      turns,
      epochs: 20,
      batchSize: 2,
      learningRate: 2,
      dir,
    });
    expect(metrics).toHaveLength(20);
    expect(metrics.every((m) => m.phase === 'sft')).toBe(true);
    expect(metrics.at(-1)?.loss).toBeLessThan(metrics[0]?.loss ?? 0);
    expect(policy.probabilities(policy.id('x'))[policy.id('a')]).toBeGreaterThan(0.8);
    expect(policy.probabilities(policy.id('y'))[policy.id('b')]).toBeGreaterThan(0.8);
    expect((await new JobFiles(dir).readState())?.step).toBe(20);
    await expect(
      runSftJob({ policy, turns: [], epochs: 1, batchSize: 1, learningRate: 1, dir }),
    ).rejects.toThrow(TrainingInputError);
  });

  it('visits every turn once per epoch, in a seeded order of its own each epoch', async () => {
    const policy = new TablePolicy('abcdefgh');
    const turns = Array.from('abcdefgh').map((c) => ({
      prompt: [policy.id(c)],
      response: [policy.id(c)],
    }));
    const seen: number[][] = [];
    const score = policy.score.bind(policy);
    policy.score = (batch, options) => {
      seen.push(batch.map((t) => t.prompt[0] ?? -1));
      return score(batch, options);
    };
    await runSftJob({ policy, turns, epochs: 3, batchSize: 4, learningRate: 0, seed: 5, dir });
    const epochs = [seen.slice(0, 2).flat(), seen.slice(2, 4).flat(), seen.slice(4, 6).flat()];
    const ids = turns.map((t) => t.prompt[0]);
    for (const order of epochs) expect([...order].sort()).toEqual([...ids].sort());
    expect(new Set(epochs.map((order) => order.join(','))).size).toBe(3);
    expect(epochs.map((o) => o.join(','))).not.toContain(ids.join(','));
    expect(shuffled(8, 3)).toEqual(shuffled(8, 3));
  });

  it('checkpoints where it is paused and goes on from there as if never stopped', async () => {
    const make = () => new TablePolicy('abcdefgh');
    const turnsOf = (policy: TablePolicy) =>
      Array.from('abcdefgh').map((c) => ({ prompt: [policy.id(c)], response: [policy.id('a')] }));
    // Each step takes a second on the job's clock.
    let clock = 0;
    const settings = {
      epochs: 3,
      batchSize: 3,
      learningRate: 1,
      seed: 2,
      now: () => clock++ * 500,
    };
    const straight = make();
    const all = await runSftJob({
      policy: straight,
      turns: turnsOf(straight),
      ...settings,
      dir: join(dir, 'straight'),
    });
    expect(all).toHaveLength(sftStepCount(8, 3, 3));

    const paused = make();
    const controller = new AbortController();
    const first = await runSftJob({
      policy: paused,
      turns: turnsOf(paused),
      ...settings,
      dir: join(dir, 'paused'),
      signal: controller.signal,
      onStep: (m) => {
        if (m.step === 4) controller.abort();
      },
    });
    expect(first.map((m) => m.step)).toEqual([1, 2, 3, 4]);
    const files = new JobFiles(join(dir, 'paused'));
    expect(await files.readState()).toMatchObject({ step: 4 });
    expect(await files.isDone()).toBe(false);

    const resumed = make();
    const state = await files.readState();
    await resumed.loadCheckpoint(state?.checkpoint ?? '');
    const rest = await runSftJob({
      policy: resumed,
      turns: turnsOf(resumed),
      ...settings,
      dir: join(dir, 'paused'),
      resumeAfter: 4,
    });
    expect(rest.map((m) => m.step)).toEqual([5, 6, 7, 8, 9]);
    expect([...first, ...rest].map((m) => m.loss)).toEqual(all.map((m) => m.loss));
    // The resumed phase's clock goes on from step 4's time instead of starting again at 0.
    const times = [...first, ...rest].map((m) => m.elapsedMs);
    expect(times.every((t, i) => i === 0 || t > (times[i - 1] ?? 0))).toBe(true);
    expect((rest[0]?.elapsedMs ?? 0) - (first.at(-1)?.elapsedMs ?? 0)).toBe(1000);
    expect(await files.isDone()).toBe(true);

    // Killed (here: a throw) after step 5 with checkpoints every 2 steps: step 4's is the last.
    const killed = make();
    const killedDir = join(dir, 'killed');
    await expect(
      runSftJob({
        policy: killed,
        turns: turnsOf(killed),
        ...settings,
        checkpointEvery: 2,
        dir: killedDir,
        onStep: (m) => {
          if (m.step === 5) throw new Error('killed');
        },
      }),
    ).rejects.toThrow('killed');
    expect(await new JobFiles(killedDir).readState()).toMatchObject({ step: 4 });
  });
});
