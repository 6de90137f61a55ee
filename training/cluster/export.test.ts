import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TrainConfig } from '../../app/api/index.ts';
import { parseSkyrlDataset } from '../../app/evidence/index.ts';
import { toyRows } from './toy-rows.test-support.ts';
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

  it('with upload, points the data at the folder wherever it is unpacked and starts in SkyRL', async () => {
    const out = join(dir, 'export');
    const skyrl = join(dir, 'SkyRL dir', 'skyrl-train');
    const result = await exportSkyRlJob(rows, config, {
      ...options,
      out,
      upload: true,
      skyrlDir: skyrl,
    });
    const overrides = JSON.parse(await readFile(join(out, 'overrides.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    expect(overrides['data.train_data']).toBe('["${oc.env:RLM_JOB_DIR}/train.jsonl"]');
    expect(overrides['trainer.ckpt_path']).toBe('/shared/rlm/job-1/checkpoints');
    expect(JSON.parse(await readFile(join(out, 'ray-job.json'), 'utf8'))).toMatchObject({
      entrypoint: result.entrypoint,
      upload: true,
    });

    // Run the entrypoint as Ray does (sh -c in the unpacked working directory) and run.sh from
    // elsewhere, with a `uv` that reports where it runs, the variable and the train data argument.
    const bin = join(dir, 'bin');
    await mkdir(bin);
    await mkdir(skyrl, { recursive: true });
    await writeFile(
      join(bin, 'uv'),
      '#!/bin/sh\npwd\necho "$RLM_JOB_DIR"\nfor a; do case "$a" in data.train_data=*) echo "$a";; esac; done\n',
      { mode: 0o755 },
    );
    const env = { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}` };
    const launched = async (file: string, args: string[], cwd: string) => {
      const { stdout } = await promisify(execFile)(file, args, { cwd, env });
      const [where = '', jobDir = '', train = ''] = stdout.split('\n');
      // The path as Hydra's ${oc.env:RLM_JOB_DIR} resolves it.
      const path = /^data\.train_data=\["(.*)"\]$/.exec(train)?.[1];
      return { where, train: path?.replace('${oc.env:RLM_JOB_DIR}', jobDir) };
    };
    const unpacked = join(dir, 'ray', 'working_dir_files', 'pkg');
    await cp(out, unpacked, { recursive: true });
    const ray = await launched('sh', ['-c', result.entrypoint], unpacked);
    expect(ray).toEqual({ where: skyrl, train: join(unpacked, 'train.jsonl') });
    expect(await readFile(join(unpacked, 'train.jsonl'), 'utf8')).toContain('"q0"');
    expect(await launched('bash', [join(unpacked, 'run.sh')], tmpdir())).toEqual(ray);
  });

  it('names a set too small to split and a bad validation share', async () => {
    await expect(
      exportSkyRlJob(rows.slice(0, 1), config, { ...options, out: dir }),
    ).rejects.toThrow(ClusterExportError);
    await expect(
      exportSkyRlJob(rows, config, { ...options, out: dir, valFraction: 1 }),
    ).rejects.toThrow(/validation share/);
    await expect(
      exportSkyRlJob(rows, config, { ...options, out: dir, upload: true }),
    ).rejects.toThrow(/skyrl-train checkout/);
  });
});
