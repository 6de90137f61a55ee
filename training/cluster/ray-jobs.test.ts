import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RayJobsClient, RayJobsError } from './ray-jobs.ts';
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
