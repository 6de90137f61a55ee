// The cluster commands' state in the workspace: the Ray cluster's address (a settings row) and
// token (in the ApiKeyVault, never answered), the jobs submitted from here, an export's ray-job.json,
// and the named errors of the cluster commands.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import { z } from 'zod';
import { RayJobFile } from '../../app/api/index.ts';
import type { ApiKeyVault } from '../../app/models/index.ts';
import { transaction } from '../../app/store/index.ts';
export const CLUSTER_CONNECTION_KEY = 'cluster.connection';
export const CLUSTER_JOBS_KEY = 'cluster.jobs';
export const TOKEN_REF = 'cluster:token';

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
export type StoredConnection = z.infer<typeof StoredConnection>;

/** One JSON row of the workspace's settings table, read and replaced whole. */
export class SettingsRow<T> {
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

export const connectionRow = (db: DatabaseSync) =>
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
