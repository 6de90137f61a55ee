import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TrainConfig } from '../../app/api/index.ts';
import { parseSkyrlDataset } from '../../app/evidence/index.ts';
import { toyRows } from './toy-rows.test-helper.ts';
import { ClusterExportError, exportSkyRlJob } from './export.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rlm-skyrl-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const rows = toyRows(10);
const config = TrainConfig.parse({ baseModel: '/models/local', lora: { rank: 16 }, groupSize: 8 });
const options = {
  out: '',
  remoteDir: '/shared/rlm/job-1/',
  remoteModel: 'Qwen/Qwen3-4B',
  valFraction: 0.2,
  cluster: { nodes: 1, gpusPerNode: 8, projectName: 'rlm', runName: 'job-1' },
};

describe('exportSkyRlJob', () => {
  it('writes SkyRL rows that read back, split stably, and a config pointing at them', async () => {
    const result = await exportSkyRlJob(rows, config, { ...options, out: dir });
    expect(result).toMatchObject({ trainRows: 8, valRows: 2 });
    const train = parseSkyrlDataset('train', await readFile(join(dir, 'train.jsonl'), 'utf8'));
    expect(train.issues).toEqual([]);
    expect(train.questions.map((q) => q.id)).toEqual([
      'q0',
      'q1',
      'q2',
      'q3',
      'q5',
      'q6',
      'q7',
      'q8',
    ]);
    expect(train.questions[0]?.gold[0]?.text).toBe('the answer is 42');
    const overrides = JSON.parse(await readFile(join(dir, 'overrides.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    expect(overrides['data.train_data']).toBe('["/shared/rlm/job-1/train.jsonl"]');
    expect(overrides['data.val_data']).toBe('["/shared/rlm/job-1/val.jsonl"]');
    expect(overrides['trainer.policy.model.path']).toBe('Qwen/Qwen3-4B');
    expect(overrides['environment.env_class']).toBe(rows[0]?.env_class);
    const job = JSON.parse(await readFile(join(dir, 'ray-job.json'), 'utf8')) as {
      entrypoint: string;
    };
    expect(job.entrypoint).toBe(result.entrypoint);
    expect(await readFile(join(dir, 'run.sh'), 'utf8')).toContain(
      'generator.n_samples_per_prompt=8',
    );
  });

  it('names a set too small to split and a bad validation share', async () => {
    await expect(
      exportSkyRlJob(rows.slice(0, 1), config, { ...options, out: dir }),
    ).rejects.toThrow(ClusterExportError);
    await expect(
      exportSkyRlJob(rows, config, { ...options, out: dir, valFraction: 1 }),
    ).rejects.toThrow(/validation share/);
  });
});
