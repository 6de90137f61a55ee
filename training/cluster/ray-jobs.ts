// A client of the Ray Jobs REST API on a cluster's head node (docs.ray.io, "Ray Jobs REST API"):
// submit, status, logs, stop, delete, list. Responses are validated, so a proxy's HTML page or a
// changed API is a named error rather than undefined fields in the Train view.
import { z } from 'zod';

export const RayJobStatus = z.enum(['PENDING', 'RUNNING', 'STOPPED', 'SUCCEEDED', 'FAILED']);
export type RayJobStatus = z.infer<typeof RayJobStatus>;

const JobDetails = z.looseObject({
  submission_id: z.string().nullable().optional(),
  job_id: z.string().nullable().optional(),
  status: RayJobStatus,
  entrypoint: z.string(),
  message: z.string().nullable().optional(),
  start_time: z.number().nullable().optional(),
  end_time: z.number().nullable().optional(),
  metadata: z.record(z.string(), z.string()).nullable().optional(),
});
export type RayJobDetails = z.infer<typeof JobDetails>;

export interface RayJobSubmission {
  entrypoint: string;
  submissionId?: string;
  /** Ray's runtime_env: working_dir, pip, env_vars, ... */
  runtimeEnv?: Record<string, unknown>;
  metadata?: Record<string, string>;
  entrypointNumCpus?: number;
  entrypointNumGpus?: number;
}

export interface RayJobsOptions {
  /** The dashboard address, e.g. http://head-node:8265. */
  address: string;
  /** Sent as a bearer token when the cluster sits behind an authenticating proxy. */
  token?: string;
  timeoutMs?: number;
  fetch?: typeof fetch;
}

export class RayJobsError extends Error {
  override name = 'RayJobsError';
  readonly status: number | null;
  constructor(message: string, status: number | null) {
    super(message);
    this.status = status;
  }
}

export class RayJobsClient {
  readonly #base: string;
  readonly #headers: Record<string, string>;
  readonly #timeoutMs: number;
  readonly #fetch: typeof fetch;

  constructor(options: RayJobsOptions) {
    let url: URL;
    try {
      url = new URL(options.address);
    } catch {
      throw new RayJobsError(
        `'${options.address}' is not a Ray dashboard address; use one like http://head-node:8265`,
        null,
      );
    }
    this.#base = url.href.replace(/\/+$/, '');
    this.#headers = { 'content-type': 'application/json' };
    if (options.token) this.#headers.authorization = `Bearer ${options.token}`;
    this.#timeoutMs = options.timeoutMs ?? 15_000;
    this.#fetch = options.fetch ?? fetch;
  }

  async submit(job: RayJobSubmission): Promise<{ submissionId: string }> {
    const body = {
      entrypoint: job.entrypoint,
      submission_id: job.submissionId,
      runtime_env: job.runtimeEnv ?? {},
      metadata: job.metadata ?? {},
      entrypoint_num_cpus: job.entrypointNumCpus,
      entrypoint_num_gpus: job.entrypointNumGpus,
    };
    // The trailing slash matters: the job server answers POST /api/jobs with a redirect otherwise.
    const response = await this.#call('POST', '/api/jobs/', body);
    const parsed = z.object({ submission_id: z.string() }).safeParse(response);
    if (!parsed.success) throw this.#unexpected('submit', response);
    return { submissionId: parsed.data.submission_id };
  }

  async status(submissionId: string): Promise<RayJobDetails> {
    const response = await this.#call('GET', `/api/jobs/${encodeURIComponent(submissionId)}`);
    const parsed = JobDetails.safeParse(response);
    if (!parsed.success) throw this.#unexpected('status', response);
    return parsed.data;
  }

  async logs(submissionId: string): Promise<string> {
    const response = await this.#call('GET', `/api/jobs/${encodeURIComponent(submissionId)}/logs`);
    const parsed = z.object({ logs: z.string() }).safeParse(response);
    if (!parsed.success) throw this.#unexpected('logs', response);
    return parsed.data.logs;
  }

  async stop(submissionId: string): Promise<boolean> {
    const response = await this.#call('POST', `/api/jobs/${encodeURIComponent(submissionId)}/stop`);
    const parsed = z.object({ stopped: z.boolean() }).safeParse(response);
    if (!parsed.success) throw this.#unexpected('stop', response);
    return parsed.data.stopped;
  }

  async delete(submissionId: string): Promise<boolean> {
    const response = await this.#call('DELETE', `/api/jobs/${encodeURIComponent(submissionId)}`);
    const parsed = z.object({ deleted: z.boolean() }).safeParse(response);
    if (!parsed.success) throw this.#unexpected('delete', response);
    return parsed.data.deleted;
  }

  async list(): Promise<RayJobDetails[]> {
    const response = await this.#call('GET', '/api/jobs/');
    // Current servers answer a list; the REST page's example shows an object keyed by job id.
    const parsed = z
      .union([z.array(JobDetails), z.record(z.string(), JobDetails)])
      .safeParse(response);
    if (!parsed.success) throw this.#unexpected('list', response);
    return Array.isArray(parsed.data) ? parsed.data : Object.values(parsed.data);
  }

  async #call(method: string, path: string, body?: unknown): Promise<unknown> {
    let response: Response;
    try {
      response = await this.#fetch(`${this.#base}${path}`, {
        method,
        headers: this.#headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(this.#timeoutMs),
      });
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new RayJobsError(
        `cannot reach the Ray cluster at ${this.#base} (${reason}); check the address in Settings and that the dashboard port is open`,
        null,
      );
    }
    const text = await response.text();
    if (!response.ok) {
      const hint =
        response.status === 401 || response.status === 403
          ? '; check the cluster token in Settings'
          : response.status === 404
            ? '; no such job on this cluster'
            : '';
      throw new RayJobsError(
        `Ray cluster answered ${method} ${path} with ${response.status}: ${text.slice(0, 300)}${hint}`,
        response.status,
      );
    }
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new RayJobsError(
        `Ray cluster answered ${method} ${path} with something that is not JSON: ${text.slice(0, 120)}`,
        response.status,
      );
    }
  }

  #unexpected(what: string, response: unknown): RayJobsError {
    return new RayJobsError(
      `Ray cluster's ${what} answer has an unexpected shape: ${JSON.stringify(response).slice(0, 200)}`,
      200,
    );
  }
}
