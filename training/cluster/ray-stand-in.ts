// A stand-in for the job server on a Ray head node, for tests (ray-jobs, the engine's cluster
// commands, the browser test): it answers the Ray Jobs REST API as its specification does, keeps
// jobs in memory, and lets the test drive them (finish, fail) or answer anything itself (override).
// A submitted job is PENDING until its status is first read, then RUNNING; every status read of a
// running job adds a log line, so logs grow while a client follows the job. Packages (a job's
// uploaded working directory) are kept as the zip bytes they were sent as.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StandInRequest {
  method: string;
  url: string;
  authorization: string | undefined;
  body: unknown;
}

export interface StandInJob {
  submissionId: string;
  status: 'PENDING' | 'RUNNING' | 'STOPPED' | 'SUCCEEDED' | 'FAILED';
  entrypoint: string;
  message: string;
  metadata: Record<string, string>;
  runtimeEnv: Record<string, unknown>;
  logs: string;
  startTime: number;
  endTime: number | null;
}

export interface StandInAnswer {
  status: number;
  body: string;
  contentType?: string;
}

export interface RayStandIn {
  /** http://127.0.0.1:PORT */
  address: string;
  /** Every request, in order. */
  seen: StandInRequest[];
  jobs: Map<string, StandInJob>;
  /** Uploaded packages by name (`_ray_pkg_<hash>.zip`). */
  packages: Map<string, Uint8Array>;
  /** Answers a request itself when it returns an answer (errors, odd shapes, a proxy's page). */
  override: ((request: StandInRequest) => StandInAnswer | undefined) | null;
  /** Ends a job as the cluster would (SUCCEEDED or FAILED), with a last log line. */
  finish(submissionId: string, status?: 'SUCCEEDED' | 'FAILED'): void;
  close(): Promise<void>;
}

const json = (status: number, value: unknown): StandInAnswer => ({
  status,
  body: JSON.stringify(value),
});

const details = (job: StandInJob) => ({
  type: 'SUBMISSION',
  job_id: null,
  submission_id: job.submissionId,
  driver_info: null,
  status: job.status,
  entrypoint: job.entrypoint,
  message: job.message,
  error_type: null,
  start_time: job.startTime,
  end_time: job.endTime,
  metadata: job.metadata,
  runtime_env: job.runtimeEnv,
});

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const bytes = Buffer.concat(chunks);
  // A package upload is the zip itself; everything else is JSON.
  if (req.url?.startsWith('/api/packages/')) return bytes.length > 0 ? bytes : undefined;
  const text = bytes.toString('utf8');
  return text ? (JSON.parse(text) as unknown) : undefined;
}

/** Starts the stand-in on 127.0.0.1; with `token`, requests without `Bearer token` get 401. */
export async function startRayStandIn(options: { token?: string } = {}): Promise<RayStandIn> {
  const jobs = new Map<string, StandInJob>();
  const packages = new Map<string, Uint8Array>();
  const seen: StandInRequest[] = [];
  let counter = 0;
  const end = (job: StandInJob, status: StandInJob['status'], message: string) => {
    job.status = status;
    job.message = message;
    job.endTime = Date.now();
    job.logs += `${message}\n`;
  };

  const answer = (request: StandInRequest): StandInAnswer => {
    if (options.token && request.authorization !== `Bearer ${options.token}`) {
      return { status: 401, body: 'Unauthorized' };
    }
    const { method, url } = request;
    const pkg = /^\/api\/packages\/gcs\/(_ray_pkg_[0-9a-f]+\.zip)$/.exec(url)?.[1];
    if (pkg !== undefined && method === 'GET') {
      return packages.has(pkg)
        ? { status: 200, body: '' }
        : { status: 404, body: `Package gcs://${pkg} does not exist` };
    }
    if (pkg !== undefined && method === 'PUT') {
      if (!(request.body instanceof Uint8Array)) return { status: 400, body: 'empty package' };
      packages.set(pkg, request.body);
      return { status: 200, body: '' };
    }
    if (url === '/api/jobs/' && method === 'POST') {
      const body = (request.body ?? {}) as {
        entrypoint?: string;
        submission_id?: string;
        metadata?: Record<string, string>;
        runtime_env?: Record<string, unknown>;
      };
      const workingDir = body.runtime_env?.working_dir;
      if (
        typeof workingDir === 'string' &&
        workingDir.startsWith('gcs://') &&
        !packages.has(workingDir.slice('gcs://'.length))
      ) {
        return { status: 500, body: `runtime_env working_dir ${workingDir} was never uploaded` };
      }
      if (typeof body.entrypoint !== 'string') return { status: 400, body: 'entrypoint missing' };
      counter += 1;
      const id = body.submission_id ?? `raysubmit_${String(counter).padStart(4, '0')}`;
      jobs.set(id, {
        submissionId: id,
        status: 'PENDING',
        entrypoint: body.entrypoint,
        message: 'Job has not started yet.',
        metadata: body.metadata ?? {},
        runtimeEnv: body.runtime_env ?? {},
        logs: '',
        startTime: Date.now(),
        endTime: null,
      });
      return json(200, { job_id: id, submission_id: id });
    }
    if (url === '/api/jobs/' && method === 'GET') return json(200, [...jobs.values()].map(details));
    const match = /^\/api\/jobs\/([^/]+)(\/logs|\/stop)?$/.exec(url);
    const job = match?.[1] === undefined ? undefined : jobs.get(decodeURIComponent(match[1]));
    if (!match || !job) return { status: 404, body: `Job ${match?.[1] ?? url} does not exist` };
    const action = `${method} ${match[2] ?? ''}`;
    switch (action) {
      case 'GET ':
        if (job.status === 'PENDING') {
          job.status = 'RUNNING';
          job.message = 'Job is currently running.';
          job.logs += `running ${job.entrypoint}\n`;
        } else if (job.status === 'RUNNING') {
          const step = job.logs.split('\n').length - 1;
          job.logs += `step ${step} reward ${(0.3 + step / 100).toFixed(2)}\n`;
        }
        return json(200, details(job));
      case 'GET /logs':
        return json(200, { logs: job.logs });
      case 'POST /stop': {
        const live = job.status === 'PENDING' || job.status === 'RUNNING';
        if (live) end(job, 'STOPPED', 'Job was intentionally stopped.');
        return json(200, { stopped: live });
      }
      case 'DELETE ':
        if (job.status === 'PENDING' || job.status === 'RUNNING') {
          return { status: 400, body: `Job ${job.submissionId} is still running; stop it first` };
        }
        jobs.delete(job.submissionId);
        return json(200, { deleted: true });
      default:
        return { status: 405, body: 'Method not allowed' };
    }
  };

  const standIn: RayStandIn = {
    address: '',
    seen,
    jobs,
    packages,
    override: null,
    finish(submissionId, status = 'SUCCEEDED') {
      const job = jobs.get(submissionId);
      if (!job) throw new Error(`the stand-in has no job '${submissionId}'`);
      end(job, status, status === 'SUCCEEDED' ? 'Job finished successfully.' : 'Job failed.');
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
  const server = createServer((req, res) => {
    void readBody(req).then((body) => {
      const request: StandInRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        authorization: req.headers.authorization,
        body,
      };
      seen.push(request);
      const out = standIn.override?.(request) ?? answer(request);
      res
        .writeHead(out.status, { 'content-type': out.contentType ?? 'application/json' })
        .end(out.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  standIn.address = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return standIn;
}
