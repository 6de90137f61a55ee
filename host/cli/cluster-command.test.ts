// `rlm-studio cluster` as a user runs it: with no flag and no RAY_* variable it follows a job on the
// cluster that Settings > Cluster saved in the workspace (address and token).
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { composeEngine } from '../index.ts';
import { openWorkspace } from '../../app/store/index.ts';
import { RayJobsClient } from '../../training/cluster/ray-jobs.ts';
import { writeToyRows } from '../../training/cluster/toy-rows.test-support.ts';
import { startRayStandIn, type RayStandIn } from '../../training/cluster/ray-stand-in.ts';

const launcher = new URL('../../bin/rlm-studio.js', import.meta.url).pathname;
const run = promisify(execFile);

let dir: string;
let server: RayStandIn;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rlm-cluster-cli-'));
  server = await startRayStandIn({ token: 'tok-cli' });
});
afterEach(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

const env = () => {
  const rest = { ...process.env };
  delete rest.RAY_ADDRESS;
  delete rest.RAY_JOB_TOKEN;
  return rest;
};

describe('rlm-studio cluster', () => {
  it('falls back to the address and token saved in Settings > Cluster', async () => {
    const cli = (...args: string[]) =>
      run(process.execPath, [launcher, '--workspace', dir, 'cluster', ...args], { env: env() });
    await expect(cli('status', 'raysubmit_x')).rejects.toMatchObject({
      stderr: expect.stringContaining('save one in Settings > Cluster') as unknown,
    });
    const workspace = openWorkspace(dir);
    const engine = composeEngine({ workspace, shell: 'serve' });
    const frame = await engine.host.handle({
      kind: 'request',
      id: 1,
      command: 'cluster.saveSettings',
      payload: { address: server.address, token: 'tok-cli' },
    });
    expect(frame.ok).toBe(true);
    await engine.dispose();
    workspace.close();
    const { submissionId } = await new RayJobsClient({
      address: server.address,
      token: 'tok-cli',
    }).submit({ entrypoint: 'python train.py' });

    expect((await cli('status', submissionId)).stdout.trim()).toBe(
      'RUNNING: Job is currently running.',
    );
    expect((await cli('logs', submissionId)).stdout).toContain('running python train.py');
    expect((await cli('stop', submissionId)).stdout.trim()).toBe('stopping');
    // A flag still wins over the saved address.
    await expect(
      cli('status', submissionId, '--address', 'http://127.0.0.1:9'),
    ).rejects.toMatchObject({ stderr: expect.stringContaining('cannot reach') as unknown });
  }, 60_000);

  it('exports with --upload and submits the folder with the job', async () => {
    const dataset = join(dir, 'rows.jsonl');
    writeToyRows(dataset, 5);
    const out = join(dir, 'job');
    const cli = (...args: string[]) =>
      run(process.execPath, [launcher, '--workspace', dir, 'cluster', ...args], { env: env() });
    const exported = await cli(
      'export',
      ...['--dataset', dataset, '--format', 'skyrl', '--out', out, '--model', 'Qwen/Qwen3-4B'],
      ...['--remote-dir', '/shared/ckpt', '--upload', '--skyrl-dir', '/opt/SkyRL/skyrl-train'],
    );
    expect(exported.stdout).toContain(
      `submit uploads the folder: rlm-studio cluster submit --dir ${out}`,
    );
    const id = (
      await cli('submit', '--dir', out, '--address', server.address, '--token', 'tok-cli')
    ).stdout.trim();
    const uri = String(server.jobs.get(id)?.runtimeEnv.working_dir);
    expect(server.packages.has(uri.replace('gcs://', ''))).toBe(true);
    expect(server.jobs.get(id)?.entrypoint).toBe(
      (JSON.parse(await readFile(join(out, 'ray-job.json'), 'utf8')) as { entrypoint: string })
        .entrypoint,
    );
    await expect(
      cli('submit', '--dir', dir, '--address', server.address, '--token', 'tok-cli'),
    ).rejects.toMatchObject({
      stderr: expect.stringContaining('ray-job.json is missing') as unknown,
    });
  }, 60_000);
});
