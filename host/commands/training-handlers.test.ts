import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TrainConfig, type ApiEvent, type ApiEventOf, type TrainJob } from '../../app/api/index.ts';
import type { ApiKeyVault } from '../../app/models/index.ts';
import { openWorkspace, RunStore, type Workspace } from '../../app/store/index.ts';
import { composeEngine } from '../compose/compose.ts';
import type { Host } from './command-host.ts';
import { spawnTrainer } from '../children/trainer-process.ts';
import { sftStepLine } from '../../training/rl/index.ts';
import type { TrainerStart } from '../../training/rl/trainer-start.ts';
import { RolloutNotTrainedError } from './train-rollouts.ts';
import {
  TrainJobNotFoundError,
  trainingHandlers,
  TrainerUnavailableError,
} from './training-handlers.ts';

// The real launcher: `rlm-studio train-job DIR` in a child process, on the toy task.
let dir: string;
let events: ApiEvent[];
let handlers: ReturnType<typeof trainingHandlers>;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rlm-train-host-'));
  events = [];
  handlers = trainingHandlers(dir, (event) => events.push(event), Date.now, {
    launcher: spawnTrainer,
    pollMs: 50,
  });
});
afterEach(() => {
  handlers.dispose();
  rmSync(dir, { recursive: true, force: true });
});

const toy = (steps: number) =>
  TrainConfig.parse({
    baseModel: 'toy:bigram',
    lora: {},
    steps,
    checkpointEvery: 2,
    batchSize: 2,
    learningRate: 4,
  });

async function until(predicate: () => boolean, timeoutMs = 30_000): Promise<void> {
  const started = Date.now();
  while (!predicate()) {
    if (Date.now() - started > timeoutMs) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
const changes = (status: TrainJob['status']) =>
  events.filter(
    (e): e is ApiEventOf<'train.jobChanged'> =>
      e.kind === 'train.jobChanged' && e.job.status === status,
  );
const steps = () => events.filter((e): e is ApiEventOf<'train.step'> => e.kind === 'train.step');

describe('training jobs', () => {
  it('runs a job in its own process and streams every step', async () => {
    const { job } = await handlers['train.start']({ name: 'toy run', config: toy(6) });
    expect(job.status).toBe('running');
    await until(() => changes('done').length > 0);
    expect(steps().map((e) => e.metrics.step)).toEqual([1, 2, 3, 4, 5, 6]);
    const { job: done, metrics } = await handlers['train.metrics']({ jobId: job.id });
    expect(done).toMatchObject({ status: 'done', step: 6, error: null });
    expect(metrics.at(-1)?.rewardMean).toBeGreaterThan(metrics[0]?.rewardMean ?? 1);
    expect((await handlers['train.jobs']({})).jobs.map((j) => j.id)).toEqual([job.id]);
  }, 60_000);

  it('tells how a rollout of a job was trained, and stores it as a run of the workspace', async () => {
    const { job } = await handlers['train.start']({ name: 'toy run', config: toy(3) });
    await until(() => changes('done').length > 0);
    const { metrics } = await handlers['train.metrics']({ jobId: job.id });
    const logged = metrics[1]?.groups[0]?.rollouts[2];
    if (!logged) throw new Error('no rollout logged at step 2');
    const { rollout } = await handlers['train.rollout']({ jobId: job.id, runId: logged.runId });
    expect(rollout).toMatchObject({ step: 2, runId: logged.runId, reward: logged.reward });
    expect(rollout.advantage).toBeCloseTo(logged.advantage, 12);
    expect(rollout.agents.map((a) => [a.agentId, a.inherited])).toEqual([
      ['0', false],
      ['0.0', true],
    ]);
    expect(rollout.group.runIds).toContain(logged.runId);
    expect(
      await handlers['train.rollout']({ jobId: job.id, runId: logged.runId, step: 2 }),
    ).toEqual({ rollout });
    await expect(
      handlers['train.rollout']({ jobId: job.id, runId: logged.runId, step: 3 }),
    ).rejects.toThrow(RolloutNotTrainedError);
    const workspace = openWorkspace(dir);
    try {
      expect(new RunStore(workspace.db).has(logged.runId)).toBe(true);
    } finally {
      workspace.close();
    }
  }, 60_000);

  it('pauses a job at a step boundary and resumes it from its checkpoint', async () => {
    const { job } = await handlers['train.start']({ name: 'long', config: toy(100_000) });
    await until(() => steps().length >= 3);
    expect(await handlers['train.stop']({ jobId: job.id })).toEqual({ stopping: true });
    await until(() => changes('paused').length > 0);
    const paused = (await handlers['train.metrics']({ jobId: job.id })).job;
    expect(paused.status).toBe('paused');
    await handlers['train.resume']({ jobId: job.id });
    await until(() => steps().some((e) => e.metrics.step > paused.step));
    await handlers['train.stop']({ jobId: job.id });
    await until(() => changes('paused').length > 1);
    const { metrics } = await handlers['train.metrics']({ jobId: job.id });
    // One unbroken history: every step once, in order.
    expect(metrics.map((m) => m.step)).toEqual(metrics.map((_, i) => i + 1));
  }, 60_000);

  it('fails a job it cannot start, with the trainer’s reason', async () => {
    const { job } = await handlers['train.start']({
      name: 'real model',
      config: TrainConfig.parse({ baseModel: '/models/qwen3-0.6b', lora: {} }),
    });
    await until(() => changes('failed').length > 0);
    const failed = changes('failed')[0]?.job;
    expect(failed?.error?.message).toMatch(
      /TrainingInputError: a job on a real model needs a dataset/,
    );
    expect(failed?.id).toBe(job.id);
  }, 60_000);

  it('counts a job by its GRPO steps: paused in its SFT phase it is paused at step 0', async () => {
    const line = (step: number) =>
      sftStepLine({
        step,
        at: 1,
        elapsedMs: step,
        loss: 1,
        gradNorm: 1,
        tokensPerSecond: 1,
        entropy: null,
      });
    // A stand-in trainer that logs three SFT steps (more than the job's GRPO steps) and stops.
    const sftOnly = trainingHandlers(dir, (event) => events.push(event), Date.now, {
      pollMs: 20,
      launcher: (jobDir) => {
        const text = [1, 2, 3].map((n) => `${JSON.stringify(line(n))}\n`).join('');
        writeFileSync(join(jobDir, 'metrics.jsonl'), text);
        let exit: (code: number | null, stderrTail: string) => void = () => undefined;
        return {
          stop: () => {
            setTimeout(() => {
              exit(0, '');
            }, 30);
          },
          onExit: (listener) => {
            exit = listener;
          },
        };
      },
    });
    const { job } = await sftOnly['train.start']({ name: 'sft', config: toy(2) });
    await until(() => steps().length === 3);
    expect(await sftOnly['train.stop']({ jobId: job.id })).toEqual({ stopping: true });
    await until(() => changes('paused').length === 1);
    expect(changes('paused')[0]?.job.step).toBe(0);
    expect(changes('done')).toEqual([]);
    sftOnly.dispose();
  });

  it('names a missing job and an engine without a trainer', async () => {
    await expect(handlers['train.metrics']({ jobId: 'nope' })).rejects.toThrow(
      TrainJobNotFoundError,
    );
    const bare = trainingHandlers(dir, () => undefined, Date.now);
    await expect(bare['train.start']({ name: 'x', config: toy(1) })).rejects.toThrow(
      TrainerUnavailableError,
    );
  });
});

// Under the desktop shell endpoint keys live in the OS keychain, which only the app's own process
// can read; the trainer gets a judge endpoint's spec and key from the host on its stdin.
describe('a rubric judge that names a saved endpoint', () => {
  const KEY = 'sk-judge-0123456789abcdefSECRET';
  /** Stands for the keychain: the key is in this process only, in no file. */
  class MemoryVault implements ApiKeyVault {
    readonly keys = new Map<string, string>();
    get(ref: string): Promise<string | undefined> {
      return Promise.resolve(this.keys.get(ref));
    }
    set(ref: string, key: string): Promise<void> {
      this.keys.set(ref, key);
      return Promise.resolve();
    }
    delete(ref: string): Promise<void> {
      this.keys.delete(ref);
      return Promise.resolve();
    }
  }
  let workspace: Workspace;
  let host: Host;
  let launched: TrainerStart[];
  let nextId = 1;
  beforeEach(() => {
    workspace = openWorkspace(join(dir, 'workspace'));
    launched = [];
    host = composeEngine({
      workspace,
      shell: 'electron',
      vault: new MemoryVault(),
      trainer: (jobDir, start) => {
        launched.push(start);
        return spawnTrainer(jobDir, start);
      },
    }).host;
    host.onEvent((event) => events.push(event));
  });
  afterEach(() => {
    workspace.close();
  });
  const call = (command: string, payload: unknown) =>
    host.handle({ kind: 'request', id: nextId++, command, payload });
  const judged = (judge: string) =>
    TrainConfig.parse({ ...toy(2), reward: 'rubric', judge, workspace: workspace.dir });

  it('hands the trainer its spec and key on stdin, and writes the key nowhere', async () => {
    const saved = await call('models.saveEndpoint', {
      endpoint: {
        name: 'Judge',
        kind: 'openai-compatible',
        baseUrl: 'http://127.0.0.1:9/v1',
        model: 'judge-model',
      },
      apiKey: KEY,
    });
    expect(saved.ok).toBe(true);
    const started = await call('train.start', { name: 'judged', config: judged('endpoint:Judge') });
    if (!started.ok) throw new Error(started.error.message);
    expect(launched).toEqual([
      { judge: { spec: 'openai-compatible:judge-model@http://127.0.0.1:9/v1', apiKey: KEY } },
    ]);
    // The child read its stdin and ran the job to the end.
    await until(() => changes('done').length > 0);
    const jobDir = join(workspace.dir, 'training', (started.result as { job: TrainJob }).job.id);
    for (const name of readdirSync(jobDir)) {
      if (statSync(join(jobDir, name)).isFile()) {
        expect(readFileSync(join(jobDir, name), 'utf8')).not.toContain(KEY);
      }
    }
    expect(readFileSync(join(jobDir, 'job.json'), 'utf8')).toContain('endpoint:Judge');
  }, 60_000);

  it('passes an ordinary judge spec on untouched (the trainer reads its key from the environment)', async () => {
    const started = await call('train.start', {
      name: 'env',
      config: judged('openai:gpt-4o-mini'),
    });
    expect(started.ok).toBe(true);
    expect(launched).toEqual([{}]);
    await until(() => changes('done').length > 0);
  }, 60_000);

  it('refuses a job whose judge names no saved endpoint, by name, before it exists', async () => {
    const started = await call('train.start', { name: 'x', config: judged('endpoint:Nobody') });
    expect(started).toMatchObject({ ok: false, error: { name: 'ModelEndpointNotFoundError' } });
    expect(launched).toEqual([]);
    expect(await call('train.jobs', {})).toMatchObject({ ok: true, result: { jobs: [] } });
  });
});
