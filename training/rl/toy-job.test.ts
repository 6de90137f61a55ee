import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RolloutTraining, TrainConfig } from '../../app/api/index.ts';
import { foldRun } from '../../app/run-log/index.ts';
import { openWorkspace, RunStore } from '../../app/store/index.ts';
import { runToyJob } from './toy-job.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rlm-toy-job-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const config = (steps: number) =>
  TrainConfig.parse({
    baseModel: 'toy:bigram',
    lora: {},
    steps,
    groupSize: 4,
    batchSize: 2,
    learningRate: 4,
    beta: 0,
    workspace: join(dir, 'workspace'),
    validation: { every: 2, k: 2, count: 2 },
  });

async function rolloutsOf(jobDir: string, step: number): Promise<RolloutTraining[]> {
  const text = await readFile(
    join(jobDir, 'rollouts', `step-${String(step).padStart(6, '0')}.jsonl`),
    'utf8',
  );
  return text
    .trim()
    .split('\n')
    .map((line) => RolloutTraining.parse(JSON.parse(line)));
}

describe('runToyJob', () => {
  it('stores every rollout as a run of the workspace that opens as an agent tree', async () => {
    const jobDir = join(dir, 'job-a');
    const result = await runToyJob({ config: config(2), dir: jobDir });
    expect(result.steps).toBe(2);
    expect(result.metrics[1]?.passAtK).toBeTypeOf('number');
    const workspace = openWorkspace(join(dir, 'workspace'));
    try {
      const store = new RunStore(workspace.db);
      const records = await rolloutsOf(jobDir, 2);
      expect(records).toHaveLength(8);
      for (const record of records) {
        const view = foldRun(store.events(record.runId));
        expect(view.status).toBe('done');
        expect([...view.agents.keys()]).toEqual(record.agents.map((a) => a.agentId));
        expect(store.get(record.runId)).toMatchObject({ model: 'toy:bigram', source: 'training' });
      }
      // Training rollouts of both steps (2 x 2 x 4), validation's of the last (2 x 2).
      expect(store.list({ source: 'training' })).toHaveLength(20);
    } finally {
      workspace.close();
    }
  });

  it('replaces the runs of a step run again, and keeps two jobs apart', async () => {
    const jobDir = join(dir, 'job-b');
    await runToyJob({ config: config(1), dir: jobDir });
    // The same folder started over (its state gone): step 1 runs again under the same run ids.
    await rm(join(jobDir, 'state.json'));
    await runToyJob({ config: config(1), dir: jobDir });
    await runToyJob({ config: config(1), dir: join(dir, 'job-c') });
    const workspace = openWorkspace(join(dir, 'workspace'));
    try {
      const runs = new RunStore(workspace.db).list({ source: 'training' });
      // Each job: 2 x 4 training rollouts and 2 x 2 validation ones (its one step is its last).
      expect(runs).toHaveLength(24);
      expect(runs.filter((r) => r.id.includes('job-b'))).toHaveLength(12);
    } finally {
      workspace.close();
    }
  });
});
