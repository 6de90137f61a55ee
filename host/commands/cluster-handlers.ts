// The cluster commands of app/api: SkyRL exports as folders under <workspace>/cluster/<id>/, and
// the Ray jobs submitted from them (remembered in the settings table); the connection and the
// named errors are cluster-state.ts'. The export writer and the Ray Jobs REST client are
// training/cluster's ClusterBackend, which compose.ts passes in (tests pass a stand-in).
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { z } from 'zod';
import {
  ClusterExport,
  ClusterJob,
  type ApiEvent,
  type ClusterSettingsView,
  type CommandArgs,
  type CommandResponse,
} from '../../app/api/index.ts';
import type { ApiKeyVault } from '../../app/models/index.ts';
import type { PaperLibrary } from '../../app/papers/index.ts';
import type { Workspace } from '../../app/store/index.ts';
import type { ClusterBackend } from '../../training/cluster/index.ts';
import {
  CLUSTER_JOBS_KEY,
  ClusterAddressMissingError,
  ClusterExportNotFoundError,
  ClusterJobNotFoundError,
  ClusterUnavailableError,
  connectionRow,
  readRayJobFile,
  savedClusterConnection,
  SettingsRow,
  TOKEN_REF,
  type StoredConnection,
} from './cluster-state.ts';

/** What `metadata.app` says on the jobs of RLM Studio (training/cluster's ray-job.json). */
const APP_TAG = 'rlm-studio';

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

/**
 * The cluster.* commands. Longer than ~60 lines as a table: one short entry per command, over the
 * state they share (the connection row, the jobs row, the backend), which is what keeps them apart
 * from the other areas; the command host dispatches by key.
 */
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
