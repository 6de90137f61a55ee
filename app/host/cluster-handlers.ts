// The cluster commands of app/api: the Ray cluster's address (a workspace setting) and token (in the
// ApiKeyVault, like the endpoints' keys: no answer holds it), SkyRL exports as folders under
// <workspace>/cluster/<id>/, and the Ray jobs submitted from them (remembered in the settings table).
// The export writer and the Ray Jobs REST client are training/cluster's; the composition root
// passes them in as a ClusterBackend, since app/ may not import training/.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import { z } from 'zod';
import {
  ClusterExport,
  ClusterJob,
  RayJobFile,
  type RayJobState,
  type ApiEvent,
  type ClusterSettingsView,
  type ClusterTarget,
  type CommandArgs,
  type CommandResponse,
  type TrainConfig,
} from '../api/index.ts';
import type { ApiKeyVault } from '../models/index.ts';
import type { PaperLibrary } from '../papers/index.ts';
import { transaction, type Workspace } from '../store/index.ts';

/** A Ray cluster's job server as the host uses it (training/cluster's RayJobsClient). */
export interface RayJobsPort {
  submit(job: {
    entrypoint: string;
    metadata?: Record<string, string>;
    runtimeEnv?: Record<string, unknown>;
  }): Promise<{ submissionId: string }>;
  /** Uploads the folder's named files as a working-directory package; answers its URI. */
  uploadWorkingDir(dir: string, names: readonly string[]): Promise<string>;
  status(submissionId: string): Promise<{ status: RayJobState; message?: string | null }>;
  logs(submissionId: string): Promise<string>;
  stop(submissionId: string): Promise<boolean>;
  /** Every job the cluster knows, in Ray's own field names. */
  list(): Promise<RayJobListing[]>;
}

export interface RayJobListing {
  submission_id?: string | null | undefined;
  status: RayJobState;
  message?: string | null | undefined;
  /** Epoch ms. */
  start_time?: number | null | undefined;
  metadata?: Record<string, string> | null | undefined;
}

/** What `metadata.app` says on the jobs of RLM Studio (training/cluster's ray-job.json). */
const APP_TAG = 'rlm-studio';

export interface ClusterConnection {
  address: string;
  token?: string | undefined;
}

/** What training/cluster gives the host: the SkyRL export writer and a Ray Jobs client. */
export interface ClusterBackend {
  exportJob(request: {
    config: TrainConfig;
    target: ClusterTarget;
    runName: string;
    out: string;
    papers: PaperLibrary;
  }): Promise<{ files: string[]; trainRows: number; valRows: number; entrypoint: string }>;
  client(connection: ClusterConnection): RayJobsPort;
}

export const CLUSTER_CONNECTION_KEY = 'cluster.connection';
export const CLUSTER_JOBS_KEY = 'cluster.jobs';
const TOKEN_REF = 'cluster:token';

export class ClusterUnavailableError extends Error {
  override readonly name = 'ClusterUnavailableError';
  constructor() {
    super(
      'this engine was started without training/cluster (SkyRL export, Ray jobs); start the app with `npm start` or `rlm-studio serve`',
    );
  }
}

export class ClusterAddressMissingError extends Error {
  override readonly name = 'ClusterAddressMissingError';
  constructor() {
    super(
      'no Ray cluster address is set; enter the dashboard address (e.g. http://head-node:8265) in Settings > Cluster',
    );
  }
}

export class ClusterExportNotFoundError extends Error {
  override readonly name = 'ClusterExportNotFoundError';
  constructor(id: string) {
    super(`there is no cluster export '${id}' in this workspace (was its folder deleted?)`);
  }
}

export class ClusterJobNotFoundError extends Error {
  override readonly name = 'ClusterJobNotFoundError';
  constructor(id: string) {
    super(
      `Ray job '${id}' was not submitted from this workspace; follow it with \`rlm-studio cluster status ${id}\``,
    );
  }
}

export class ClusterSettingsDamagedError extends Error {
  override readonly name = 'ClusterSettingsDamagedError';
  constructor(key: string, problem: string) {
    super(
      `the settings row '${key}' in the workspace database is damaged (${problem}); delete it ("DELETE FROM settings WHERE key = '${key}'") and enter the cluster settings again`,
    );
  }
}

export class ClusterJobFileError extends Error {
  override readonly name = 'ClusterJobFileError';
  constructor(path: string, problem: string) {
    super(`${path} ${problem}; export the job again`);
  }
}

/** An export folder's ray-job.json (what submit sends), or a ClusterJobFileError saying what is wrong. */
export async function readRayJobFile(dir: string): Promise<RayJobFile> {
  const path = join(dir, 'ray-job.json');
  let value: unknown;
  try {
    value = JSON.parse(await readFile(path, 'utf8'));
  } catch (error) {
    throw new ClusterJobFileError(
      path,
      (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'is missing' : 'is not JSON',
    );
  }
  const parsed = RayJobFile.safeParse(value);
  if (!parsed.success) {
    throw new ClusterJobFileError(
      path,
      `is not a job file (${parsed.error.issues[0]?.message ?? 'wrong shape'})`,
    );
  }
  return parsed.data;
}

const StoredConnection = z.object({
  address: z.string().nullable(),
  tokenRef: z.string().optional(),
});
type StoredConnection = z.infer<typeof StoredConnection>;

/** One JSON row of the workspace's settings table, read and replaced whole. */
class SettingsRow<T> {
  readonly db: DatabaseSync;
  readonly key: string;
  readonly schema: z.ZodType<T>;
  readonly empty: T;

  constructor(db: DatabaseSync, key: string, schema: z.ZodType<T>, empty: T) {
    this.db = db;
    this.key = key;
    this.schema = schema;
    this.empty = empty;
  }

  read(): T {
    const row = this.db.prepare('SELECT value FROM settings WHERE key = ?').get(this.key) as
      { value: string } | undefined;
    if (row === undefined) return this.empty;
    let value: unknown;
    try {
      value = JSON.parse(row.value);
    } catch {
      throw new ClusterSettingsDamagedError(this.key, 'it is not JSON');
    }
    const parsed = this.schema.safeParse(value);
    if (!parsed.success) {
      throw new ClusterSettingsDamagedError(
        this.key,
        parsed.error.issues[0]?.message ?? 'wrong shape',
      );
    }
    return parsed.data;
  }

  update(change: (value: T) => T): T {
    let next = this.empty;
    transaction(this.db, () => {
      next = change(this.read());
      this.db
        .prepare(
          `INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?)
           ON CONFLICT(key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
        )
        .run(this.key, JSON.stringify(next), Date.now());
    });
    return next;
  }
}

const connectionRow = (db: DatabaseSync) =>
  new SettingsRow(db, CLUSTER_CONNECTION_KEY, StoredConnection, { address: null });

/** The address and token Settings > Cluster saved (the CLI falls back to them). */
export async function savedClusterConnection(
  db: DatabaseSync,
  vault: ApiKeyVault,
): Promise<{ address: string | null; token: string | undefined }> {
  const stored = connectionRow(db).read();
  return {
    address: stored.address,
    token: stored.tokenRef === undefined ? undefined : await vault.get(stored.tokenRef),
  };
}

type ClusterCommand =
  | 'cluster.settings'
  | 'cluster.saveSettings'
  | 'cluster.export'
  | 'cluster.exports'
  | 'cluster.submit'
  | 'cluster.jobs'
  | 'cluster.findJobs'
  | 'cluster.status'
  | 'cluster.logs'
  | 'cluster.stop';

export type ClusterHandlers = {
  [C in ClusterCommand]: (args: CommandArgs<C>) => Promise<CommandResponse<C>>;
};

export interface ClusterHandlerOptions {
  workspace: Pick<Workspace, 'dir' | 'db'>;
  vault: ApiKeyVault;
  papers: PaperLibrary;
  backend?: ClusterBackend | undefined;
  emit: (event: ApiEvent) => void;
  now: () => number;
}

export function clusterHandlers(options: ClusterHandlerOptions): ClusterHandlers {
  const { workspace, vault, now, emit } = options;
  const connection = connectionRow(workspace.db);
  const jobs = new SettingsRow(workspace.db, CLUSTER_JOBS_KEY, z.array(ClusterJob), []);
  const root = join(workspace.dir, 'cluster');
  const backend = (): ClusterBackend => {
    if (!options.backend) throw new ClusterUnavailableError();
    return options.backend;
  };
  const view = (stored: StoredConnection): ClusterSettingsView => ({
    address: stored.address,
    hasToken: stored.tokenRef !== undefined,
  });
  const readExport = async (id: string): Promise<ClusterExport> => {
    try {
      return ClusterExport.parse(JSON.parse(await readFile(join(root, id, 'export.json'), 'utf8')));
    } catch {
      throw new ClusterExportNotFoundError(id);
    }
  };
  const findJob = (id: string): ClusterJob => {
    const job = jobs.read().find((j) => j.submissionId === id);
    if (!job) throw new ClusterJobNotFoundError(id);
    return job;
  };
  const clientFor = async (address: string) => {
    const saved = await savedClusterConnection(workspace.db, vault);
    // A job follows the cluster it went to; the token is the one saved now.
    return backend().client({ address, token: saved.token });
  };

  return {
    'cluster.settings': () => Promise.resolve(view(connection.read())),

    'cluster.saveSettings': async ({ address, token, forgetToken }) => {
      // The token is written first, so the row never points at a token that is not there.
      if (token !== undefined) await vault.set(TOKEN_REF, token);
      if (forgetToken) await vault.delete(TOKEN_REF);
      const next = connection.update((current) => {
        const tokenRef =
          token !== undefined ? TOKEN_REF : forgetToken ? undefined : current.tokenRef;
        return {
          address: address === undefined ? current.address : address,
          ...(tokenRef === undefined ? {} : { tokenRef }),
        };
      });
      emit({ kind: 'cluster.settingsChanged', at: now() });
      return view(next);
    },

    'cluster.export': async ({ name, config, target }) => {
      const slug =
        name
          .toLowerCase()
          .replace(/[^a-z0-9]+/g, '-')
          .replace(/^-|-$/g, '') || 'job';
      const id = `${new Date(now()).toISOString().slice(0, 10)}-${slug.slice(0, 40)}-${randomBytes(3).toString('hex')}`;
      const dir = join(root, id);
      const written = await backend().exportJob({
        config,
        target,
        runName: slug,
        out: dir,
        papers: options.papers,
      });
      const files = await Promise.all(
        written.files.map(async (path) => ({
          name: basename(path),
          bytes: (await stat(path)).size,
        })),
      );
      const record: ClusterExport = {
        id,
        name,
        createdAt: now(),
        dir,
        files,
        trainRows: written.trainRows,
        valRows: written.valRows,
        entrypoint: written.entrypoint,
        remoteDir: target.remoteDir,
        upload: target.upload,
      };
      const path = join(dir, 'export.json');
      await writeFile(`${path}.tmp`, `${JSON.stringify(record, null, 2)}\n`);
      await rename(`${path}.tmp`, path);
      return { export: record };
    },

    'cluster.exports': async () => {
      if (!existsSync(root)) return { exports: [] };
      const found: ClusterExport[] = [];
      for (const id of await readdir(root)) {
        // A folder without a readable export.json is not an export (a partial or stray folder).
        const record = await readExport(id).catch(() => null);
        if (record) found.push(record);
      }
      return { exports: found.sort((a, b) => b.createdAt - a.createdAt) };
    },

    'cluster.submit': async ({ exportId }) => {
      const record = await readExport(exportId);
      const { address } = connection.read();
      if (address === null) throw new ClusterAddressMissingError();
      const job = await readRayJobFile(record.dir);
      const client = await clientFor(address);
      // The folder's own files (not export.json), skipped by the cluster when it has them already.
      const workingDir = job.upload
        ? await client.uploadWorkingDir(
            record.dir,
            record.files.map((file) => file.name),
          )
        : null;
      const { submissionId } = await client.submit({
        entrypoint: job.entrypoint,
        metadata: { ...job.metadata, export: record.id, name: record.name },
        ...(workingDir === null ? {} : { runtimeEnv: { working_dir: workingDir } }),
      });
      const submitted: ClusterJob = {
        submissionId,
        exportId,
        name: record.name,
        address,
        submittedAt: now(),
        state: null,
        message: null,
      };
      jobs.update((list) => [submitted, ...list.filter((j) => j.submissionId !== submissionId)]);
      emit({ kind: 'cluster.jobsChanged', at: now() });
      return { job: submitted };
    },

    'cluster.jobs': () => Promise.resolve({ jobs: jobs.read() }),

    'cluster.findJobs': async () => {
      const { address } = connection.read();
      if (address === null) throw new ClusterAddressMissingError();
      const listed = await (await clientFor(address)).list();
      const found: ClusterJob[] = [];
      for (const job of listed) {
        const id = job.submission_id;
        if (!id || job.metadata?.app !== APP_TAG) continue;
        if (!ClusterJob.shape.submissionId.safeParse(id).success) continue;
        // The export it names, when that export is this workspace's (the id is checked before it
        // becomes part of a path).
        const exportId = job.metadata.export ?? null;
        const ours =
          exportId !== null &&
          ClusterJob.shape.exportId.safeParse(exportId).success &&
          existsSync(join(root, exportId, 'export.json'));
        found.push({
          submissionId: id,
          exportId: ours ? exportId : null,
          name: job.metadata.name ?? id,
          address,
          submittedAt: job.start_time ?? now(),
          state: job.status,
          message: job.message ?? null,
        });
      }
      // Only the jobs the list does not hold when it is written (the call waited on the cluster).
      let added = 0;
      const next = jobs.update((list) => {
        const listedNow = new Set(list.map((job) => job.submissionId));
        const fresh = found.filter((job) => !listedNow.has(job.submissionId));
        added = fresh.length;
        return [...fresh, ...list].sort((a, b) => b.submittedAt - a.submittedAt);
      });
      if (added > 0) emit({ kind: 'cluster.jobsChanged', at: now() });
      return { added, jobs: next };
    },

    'cluster.status': async ({ submissionId }) => {
      const job = findJob(submissionId);
      const details = await (await clientFor(job.address)).status(submissionId);
      const next: ClusterJob = { ...job, state: details.status, message: details.message ?? null };
      if (next.state !== job.state || next.message !== job.message) {
        jobs.update((list) => list.map((j) => (j.submissionId === submissionId ? next : j)));
        emit({ kind: 'cluster.jobsChanged', at: now() });
      }
      return { job: next };
    },

    'cluster.logs': async ({ submissionId, tailLines }) => {
      const job = findJob(submissionId);
      const text = await (await clientFor(job.address)).logs(submissionId);
      const lines = text.split('\n');
      if (lines.at(-1) === '') lines.pop();
      return { text: lines.slice(-tailLines).join('\n'), totalLines: lines.length };
    },

    'cluster.stop': async ({ submissionId }) => {
      const job = findJob(submissionId);
      return { stopped: await (await clientFor(job.address)).stop(submissionId) };
    },
  };
}
