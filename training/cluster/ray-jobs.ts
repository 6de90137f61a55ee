// A client of the Ray Jobs REST API on a cluster's head node (docs.ray.io, "Ray Jobs REST API"):
// submit, status, logs, stop, delete, list, and a folder uploaded as a job's working directory (the
// package endpoints `ray job submit --working-dir` uses). Responses are validated, so a proxy's
// HTML page or a changed API is a named error rather than undefined fields in the Train view.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { zipSync } from 'fflate';
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

/** Ray refuses a working directory larger than this (its client checks before uploading). */
export const MAX_WORKING_DIR_BYTES = 500 * 1024 * 1024;

/**
 * A folder's files (top level; `names` picks some) as the zip Ray unpacks for a job's working
 * directory, and its URI. The zip is the same for the same files (fixed dates, sorted names), so
 * its content hash names it and a folder already uploaded is not sent again.
 */
export function workingDirPackage(
  dir: string,
  names?: readonly string[],
): { uri: string; name: string; bytes: Uint8Array<ArrayBuffer> } {
  let listed: string[];
  try {
    listed = [...(names ?? readdirSync(dir))];
  } catch {
    throw new RayJobsError(`${dir} is not a folder that can be read`, null);
  }
  for (const name of listed) {
    // Names are the folder's own files: a path would reach outside it.
    if (name !== basename(name) || name === '..' || !existsSync(join(dir, name))) {
      throw new RayJobsError(
        `${dir} has no file '${name}' to upload (was the folder changed after the export?)`,
        null,
      );
    }
  }
  const picked = listed.filter((name) => statSync(join(dir, name)).isFile()).sort();
  let size = 0;
  const files: Record<string, [Uint8Array, { mtime: Date }]> = {};
  for (const name of picked) {
    const data = readFileSync(join(dir, name));
    size += data.length;
    if (size > MAX_WORKING_DIR_BYTES) {
      throw new RayJobsError(
        `${dir} holds more than Ray's ${MAX_WORKING_DIR_BYTES / 1024 / 1024} MiB limit for a job's working directory; copy the folder to the cluster's shared storage instead`,
        null,
      );
    }
    files[name] = [data, { mtime: new Date('2000-01-01T00:00:00Z') }];
  }
  // A copy backed by a plain ArrayBuffer, which every fetch typing takes as a body.
  const bytes = new Uint8Array(zipSync(files, { level: 6 }));
  const name = `_ray_pkg_${createHash('sha1').update(bytes).digest('hex')}.zip`;
  return { uri: `gcs://${name}`, name, bytes };
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

  /**
   * Uploads the folder's files (or those named) as a working-directory package unless the cluster
   * has it already; returns its URI for `runtimeEnv: { working_dir }`.
   */
  async uploadWorkingDir(dir: string, names?: readonly string[]): Promise<string> {
    const pkg = workingDirPackage(dir, names);
    const path = `/api/packages/gcs/${pkg.name}`;
    const found = await this.#request('GET', path, undefined, [404]);
    if (found.status === 404) {
      await this.#request('PUT', path, pkg.bytes);
    }
    return pkg.uri;
  }

  async #call(method: string, path: string, body?: unknown): Promise<unknown> {
    const { text, status } = await this.#request(
      method,
      path,
      body === undefined ? undefined : JSON.stringify(body),
    );
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new RayJobsError(
        `Ray cluster answered ${method} ${path} with something that is not JSON: ${text.slice(0, 120)}`,
        status,
      );
    }
  }

  /** One request; an answer that is not 2xx (nor one of `allowed`) is a RayJobsError. */
  async #request(
    method: string,
    path: string,
    body?: string | Uint8Array<ArrayBuffer>,
    allowed: readonly number[] = [],
  ): Promise<{ text: string; status: number }> {
    let response: Response;
    const headers =
      body instanceof Uint8Array
        ? { ...this.#headers, 'content-type': 'application/octet-stream' }
        : this.#headers;
    try {
      response = await this.#fetch(`${this.#base}${path}`, {
        method,
        headers,
        body,
        // An upload takes as long as the link needs for it, within reason.
        signal: AbortSignal.timeout(
          body instanceof Uint8Array ? Math.max(this.#timeoutMs, 300_000) : this.#timeoutMs,
        ),
      });
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new RayJobsError(
        `cannot reach the Ray cluster at ${this.#base} (${reason}); check the address in Settings and that the dashboard port is open`,
        null,
      );
    }
    const text = await response.text();
    if (!response.ok && !allowed.includes(response.status)) {
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
    return { text, status: response.status };
  }

  #unexpected(what: string, response: unknown): RayJobsError {
    return new RayJobsError(
      `Ray cluster's ${what} answer has an unexpected shape: ${JSON.stringify(response).slice(0, 200)}`,
      200,
    );
  }
}
