import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { unzipSync } from 'fflate';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RayJobsClient, RayJobsError, workingDirPackage } from './ray-jobs.ts';
import { startRayStandIn, type RayStandIn } from './ray-stand-in.ts';

// The stand-in answers as the Ray Jobs REST API specification does (ray-stand-in.ts).
let server: RayStandIn;
beforeEach(async () => {
  server = await startRayStandIn({ token: 'secret' });
});
afterEach(async () => {
  await server.close();
});

describe('RayJobsClient', () => {
  it('submits, follows, reads logs, stops and deletes a job through the documented endpoints', async () => {
    const client = new RayJobsClient({ address: `${server.address}/`, token: 'secret' });
    const { submissionId } = await client.submit({
      entrypoint: 'python train.py',
      submissionId: 'raysubmit_abc',
      runtimeEnv: { working_dir: '.' },
      metadata: { app: 'rlm-studio' },
      entrypointNumGpus: 1,
    });
    expect(submissionId).toBe('raysubmit_abc');
    expect((await client.status(submissionId)).status).toBe('RUNNING');
    expect((await client.status(submissionId)).metadata).toEqual({ app: 'rlm-studio' });
    expect(await client.logs(submissionId)).toMatch(/running python train.py\nstep 1 reward/);
    expect(await client.stop(submissionId)).toBe(true);
    expect(await client.stop(submissionId)).toBe(false);
    expect((await client.list()).map((j) => j.status)).toEqual(['STOPPED']);
    expect(await client.delete(submissionId)).toBe(true);
    expect(server.seen.map((s) => `${s.method} ${s.url}`)).toEqual([
      'POST /api/jobs/',
      'GET /api/jobs/raysubmit_abc',
      'GET /api/jobs/raysubmit_abc',
      'GET /api/jobs/raysubmit_abc/logs',
      'POST /api/jobs/raysubmit_abc/stop',
      'POST /api/jobs/raysubmit_abc/stop',
      'GET /api/jobs/',
      'DELETE /api/jobs/raysubmit_abc',
    ]);
    expect(server.seen[0]?.body).toEqual({
      entrypoint: 'python train.py',
      submission_id: 'raysubmit_abc',
      runtime_env: { working_dir: '.' },
      metadata: { app: 'rlm-studio' },
      entrypoint_num_gpus: 1,
    });
    for (const s of server.seen) expect(s.authorization).toBe('Bearer secret');
  });

  it('reads the job list in the keyed form of the REST page too', async () => {
    server.override = () => ({
      status: 200,
      body: JSON.stringify({
        raysubmit_abc: { status: 'FAILED', entrypoint: 'python train.py', submission_id: 'x' },
      }),
    });
    expect((await new RayJobsClient({ address: server.address }).list())[0]?.status).toBe('FAILED');
  });

  it('names a missing job, a bad token, garbage answers and an unreachable cluster', async () => {
    const client = new RayJobsClient({ address: server.address, token: 'secret' });
    await expect(client.status('raysubmit_zzz')).rejects.toThrow(/404.*no such job/);
    await expect(new RayJobsClient({ address: server.address }).logs('x')).rejects.toThrow(
      /401.*check the cluster token/,
    );
    server.override = () => ({ status: 200, body: '<html>login</html>', contentType: 'text/html' });
    await expect(client.logs('x')).rejects.toThrow(/not JSON/);
    server.override = () => ({ status: 200, body: JSON.stringify({ status: 'EXPLODED' }) });
    await expect(client.status('x')).rejects.toThrow(/unexpected shape/);
    const closed = new RayJobsClient({ address: 'http://127.0.0.1:9', timeoutMs: 2000 });
    await expect(closed.list()).rejects.toThrow(/cannot reach the Ray cluster/);
    expect(() => new RayJobsClient({ address: 'head node' })).toThrow(RayJobsError);
  });
});

describe('working directory upload', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'rlm-ray-pkg-'));
    await writeFile(join(dir, 'train.jsonl'), '{"q": 1}\n');
    await writeFile(join(dir, 'run.sh'), '#!/usr/bin/env bash\n');
    await writeFile(join(dir, 'export.json'), '{}\n');
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('uploads the named files once, as a zip named by its content, and submits with it', async () => {
    const client = new RayJobsClient({ address: server.address, token: 'secret' });
    const uri = await client.uploadWorkingDir(dir, ['train.jsonl', 'run.sh']);
    expect(uri).toMatch(/^gcs:\/\/_ray_pkg_[0-9a-f]{40}\.zip$/);
    const name = uri.slice('gcs://'.length);
    const files = unzipSync(server.packages.get(name) ?? new Uint8Array());
    expect(Object.keys(files).sort()).toEqual(['run.sh', 'train.jsonl']);
    expect(new TextDecoder().decode(files['train.jsonl'])).toBe('{"q": 1}\n');
    // The same files again: the cluster has them, so nothing is sent.
    expect(await client.uploadWorkingDir(dir, ['run.sh', 'train.jsonl'])).toBe(uri);
    expect(server.seen.map((s) => `${s.method} ${s.url}`)).toEqual([
      `GET /api/packages/gcs/${name}`,
      `PUT /api/packages/gcs/${name}`,
      `GET /api/packages/gcs/${name}`,
    ]);
    for (const s of server.seen) expect(s.authorization).toBe('Bearer secret');
    const { submissionId } = await client.submit({
      entrypoint: 'sh run.sh',
      runtimeEnv: { working_dir: uri },
    });
    expect(server.jobs.get(submissionId)?.runtimeEnv).toEqual({ working_dir: uri });
    // A changed file is another package.
    await writeFile(join(dir, 'train.jsonl'), '{"q": 2}\n');
    expect(await client.uploadWorkingDir(dir, ['train.jsonl', 'run.sh'])).not.toBe(uri);
    // Without names, every file of the folder.
    expect(Object.keys(unzipSync(workingDirPackage(dir).bytes)).sort()).toEqual([
      'export.json',
      'run.sh',
      'train.jsonl',
    ]);
  });

  it('names a missing file, a path outside the folder, a refused upload and a bad token', async () => {
    const client = new RayJobsClient({ address: server.address, token: 'secret' });
    await expect(client.uploadWorkingDir(dir, ['train.jsonl', 'val.jsonl'])).rejects.toThrow(
      /has no file 'val.jsonl'/,
    );
    await expect(client.uploadWorkingDir(dir, ['../etc/passwd'])).rejects.toThrow(RayJobsError);
    await expect(client.uploadWorkingDir(join(dir, 'nope'))).rejects.toThrow(/not a folder/);
    await expect(
      new RayJobsClient({ address: server.address }).uploadWorkingDir(dir),
    ).rejects.toThrow(/401.*check the cluster token/);
    server.override = (request) =>
      request.method === 'PUT' ? { status: 500, body: 'GCS is full' } : undefined;
    await expect(client.uploadWorkingDir(dir)).rejects.toThrow(/500.*GCS is full/);
    expect(server.packages.size).toBe(0);
    // The stand-in refuses, as Ray does, a job whose working directory was never uploaded.
    await expect(
      client.submit({ entrypoint: 'x', runtimeEnv: { working_dir: 'gcs://_ray_pkg_00.zip' } }),
    ).rejects.toThrow(/never uploaded/);
  });
});
