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

/** What the stand-in cluster holds: its jobs, its uploaded packages, a counter for job ids. */
interface StandInState {
  jobs: Map<string, StandInJob>;
  packages: Map<string, Uint8Array>;
  counter: number;
}

function end(job: StandInJob, status: StandInJob['status'], message: string): void {
  job.status = status;
  job.message = message;
  job.endTime = Date.now();
  job.logs += `${message}\n`;
}

/** The Ray Jobs API's answer to one request, as the API specification has it. */
function answer(state: StandInState, request: StandInRequest): StandInAnswer {
  const { method, url } = request;
  const pkg = /^\/api\/packages\/gcs\/(_ray_pkg_[0-9a-f]+\.zip)$/.exec(url)?.[1];
  if (pkg !== undefined) return answerPackage(state, method, pkg, request.body);
  if (url === '/api/jobs/' && method === 'POST') return submit(state, request.body);
  if (url === '/api/jobs/' && method === 'GET')
    return json(200, [...state.jobs.values()].map(details));
  const match = /^\/api\/jobs\/([^/]+)(\/logs|\/stop)?$/.exec(url);
  const job = match?.[1] === undefined ? undefined : state.jobs.get(decodeURIComponent(match[1]));
  if (!match || !job) return { status: 404, body: `Job ${match?.[1] ?? url} does not exist` };
  return answerJob(state, job, `${method} ${match[2] ?? ''}`);
}

function answerPackage(
  state: StandInState,
  method: string,
  pkg: string,
  body: unknown,
): StandInAnswer {
  if (method === 'GET') {
    return state.packages.has(pkg)
      ? { status: 200, body: '' }
      : { status: 404, body: `Package gcs://${pkg} does not exist` };
  }
  if (method !== 'PUT') return { status: 405, body: 'Method not allowed' };
  if (!(body instanceof Uint8Array)) return { status: 400, body: 'empty package' };
  state.packages.set(pkg, body);
  return { status: 200, body: '' };
}

function submit(state: StandInState, raw: unknown): StandInAnswer {
  const body = (raw ?? {}) as {
    entrypoint?: string;
    submission_id?: string;
    metadata?: Record<string, string>;
    runtime_env?: Record<string, unknown>;
  };
  const workingDir = body.runtime_env?.working_dir;
  if (
    typeof workingDir === 'string' &&
    workingDir.startsWith('gcs://') &&
    !state.packages.has(workingDir.slice('gcs://'.length))
  ) {
    return { status: 500, body: `runtime_env working_dir ${workingDir} was never uploaded` };
  }
  if (typeof body.entrypoint !== 'string') return { status: 400, body: 'entrypoint missing' };
  state.counter += 1;
  const id = body.submission_id ?? `raysubmit_${String(state.counter).padStart(4, '0')}`;
  state.jobs.set(id, {
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

/** One job's endpoints; each status read moves a job along (pending, running, a log line). */
function answerJob(state: StandInState, job: StandInJob, action: string): StandInAnswer {
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
      state.jobs.delete(job.submissionId);
      return json(200, { deleted: true });
    default:
      return { status: 405, body: 'Method not allowed' };
  }
}

/** Starts the stand-in on 127.0.0.1; with `token`, requests without `Bearer token` get 401. */
export async function startRayStandIn(options: { token?: string } = {}): Promise<RayStandIn> {
  const state: StandInState = { jobs: new Map(), packages: new Map(), counter: 0 };
  const { jobs, packages } = state;
  const seen: StandInRequest[] = [];
  const authorized = (request: StandInRequest) =>
    !options.token || request.authorization === `Bearer ${options.token}`;
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
      const out =
        standIn.override?.(request) ??
        (authorized(request) ? answer(state, request) : { status: 401, body: 'Unauthorized' });
      res
        .writeHead(out.status, { 'content-type': out.contentType ?? 'application/json' })
        .end(out.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  standIn.address = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return standIn;
}
