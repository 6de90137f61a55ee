import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RayJobsClient, RayJobsError } from './ray-jobs.ts';

interface Seen {
  method: string;
  url: string;
  authorization: string | undefined;
  body: unknown;
}

// A stand-in for the job server on a Ray head node, answering as the REST API specification does.
let server: Server;
let address: string;
let seen: Seen[];
let reply: (req: IncomingMessage) => { status: number; body: string };

const readBody = async (req: IncomingMessage): Promise<unknown> => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? (JSON.parse(text) as unknown) : undefined;
};

const job = (status: string) => ({
  type: 'SUBMISSION',
  job_id: '02000000',
  submission_id: 'raysubmit_abc',
  driver_info: null,
  status,
  entrypoint: 'python train.py',
  message: 'Job is currently running.',
  error_type: null,
  start_time: 1_700_000_000_000,
  end_time: null,
  metadata: { app: 'rlm-studio' },
  runtime_env: {},
});

beforeEach(async () => {
  seen = [];
  reply = (req) => {
    if (req.method === 'POST' && req.url === '/api/jobs/') {
      return {
        status: 200,
        body: JSON.stringify({ job_id: 'raysubmit_abc', submission_id: 'raysubmit_abc' }),
      };
    }
    if (req.method === 'GET' && req.url === '/api/jobs/raysubmit_abc')
      return { status: 200, body: JSON.stringify(job('RUNNING')) };
    if (req.method === 'GET' && req.url === '/api/jobs/raysubmit_abc/logs')
      return { status: 200, body: JSON.stringify({ logs: 'step 1 reward 0.3\n' }) };
    if (req.method === 'POST' && req.url === '/api/jobs/raysubmit_abc/stop')
      return { status: 200, body: JSON.stringify({ stopped: true }) };
    if (req.method === 'DELETE' && req.url === '/api/jobs/raysubmit_abc')
      return { status: 200, body: JSON.stringify({ deleted: true }) };
    if (req.method === 'GET' && req.url === '/api/jobs/')
      return { status: 200, body: JSON.stringify([job('SUCCEEDED')]) };
    return { status: 404, body: 'Job raysubmit_zzz does not exist' };
  };
  server = createServer((req, res) => {
    void readBody(req).then((body) => {
      seen.push({
        method: req.method ?? '',
        url: req.url ?? '',
        authorization: req.headers.authorization,
        body,
      });
      const { status, body: out } = reply(req);
      res.writeHead(status, { 'content-type': 'application/json' }).end(out);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  address = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterEach(async () => {
  await new Promise<void>((resolve) => {
    server.close(() => {
      resolve();
    });
  });
});

describe('RayJobsClient', () => {
  it('submits, follows, reads logs, stops and deletes a job through the documented endpoints', async () => {
    const client = new RayJobsClient({ address: `${address}/`, token: 'secret' });
    const { submissionId } = await client.submit({
      entrypoint: 'python train.py',
      runtimeEnv: { working_dir: '.' },
      metadata: { app: 'rlm-studio' },
      entrypointNumGpus: 1,
    });
    expect(submissionId).toBe('raysubmit_abc');
    expect((await client.status(submissionId)).status).toBe('RUNNING');
    expect(await client.logs(submissionId)).toContain('reward 0.3');
    expect(await client.stop(submissionId)).toBe(true);
    expect(await client.delete(submissionId)).toBe(true);
    expect((await client.list()).map((j) => j.status)).toEqual(['SUCCEEDED']);
    expect(seen.map((s) => `${s.method} ${s.url}`)).toEqual([
      'POST /api/jobs/',
      'GET /api/jobs/raysubmit_abc',
      'GET /api/jobs/raysubmit_abc/logs',
      'POST /api/jobs/raysubmit_abc/stop',
      'DELETE /api/jobs/raysubmit_abc',
      'GET /api/jobs/',
    ]);
    expect(seen[0]?.body).toEqual({
      entrypoint: 'python train.py',
      runtime_env: { working_dir: '.' },
      metadata: { app: 'rlm-studio' },
      entrypoint_num_gpus: 1,
    });
    for (const s of seen) expect(s.authorization).toBe('Bearer secret');
  });

  it('reads the job list in the keyed form of the REST page too', async () => {
    reply = () => ({ status: 200, body: JSON.stringify({ raysubmit_abc: job('FAILED') }) });
    expect((await new RayJobsClient({ address }).list())[0]?.status).toBe('FAILED');
  });

  it('names a missing job, a bad token, garbage answers and an unreachable cluster', async () => {
    const client = new RayJobsClient({ address });
    await expect(client.status('raysubmit_zzz')).rejects.toThrow(/404.*no such job/);
    reply = () => ({ status: 401, body: 'unauthorized' });
    await expect(client.logs('x')).rejects.toThrow(/check the cluster token/);
    reply = () => ({ status: 200, body: '<html>login</html>' });
    await expect(client.logs('x')).rejects.toThrow(/not JSON/);
    reply = () => ({ status: 200, body: JSON.stringify({ status: 'EXPLODED' }) });
    await expect(client.status('x')).rejects.toThrow(/unexpected shape/);
    const closed = new RayJobsClient({ address: 'http://127.0.0.1:9', timeoutMs: 2000 });
    await expect(closed.list()).rejects.toThrow(/cannot reach the Ray cluster/);
    expect(() => new RayJobsClient({ address: 'head node' })).toThrow(RayJobsError);
  });
});
