// training/cluster as the engine's ClusterBackend (host/commands/cluster-handlers.ts): the Train
// view's "Export to cluster" reads the configured job's dataset and writes it in SkyRL's formats;
// its jobs panel talks to the cluster through RayJobsClient. host/compose/compose.ts installs it;
// tests pass a stand-in of the same interface.
import type { ClusterTarget, RayJobState, TrainConfig } from '../../app/api/index.ts';
import { loadDataset, paperLookup, toSkyrlRow } from '../../app/evidence/index.ts';
import type { PaperLibrary } from '../../app/papers/index.ts';
import { ClusterExportError, exportSkyRlJob } from './export.ts';
import { RayJobsClient } from './ray-jobs.ts';

/** A Ray cluster's job server as the cluster commands use it (RayJobsClient). */
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

export interface ClusterConnection {
  address: string;
  token?: string | undefined;
}

/** What this folder gives the cluster commands: the SkyRL export writer and a Ray Jobs client. */
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

export function rayClusterBackend(options: { timeoutMs?: number } = {}): ClusterBackend {
  return {
    async exportJob({ config, target, runName, out, papers }) {
      if (!config.dataset) {
        throw new ClusterExportError(
          'the job has no dataset to export; set a dataset file in the Train form (toy:bigram brings its own questions and runs only locally)',
        );
      }
      const dataset = await loadDataset(config.dataset.path, config.dataset.format);
      const papersOf = paperLookup(dataset, papers);
      const questions =
        config.dataset.limit === undefined
          ? dataset.questions
          : dataset.questions.slice(0, config.dataset.limit);
      const rows = questions.map((q) => toSkyrlRow(q, papersOf(q), config.maxTurns));
      return exportSkyRlJob(rows, config, {
        out,
        remoteDir: target.remoteDir,
        remoteModel: target.remoteModel,
        valFraction: target.valFraction,
        upload: target.upload,
        skyrlDir: target.skyrlDir,
        cluster: {
          nodes: target.nodes,
          gpusPerNode: target.gpusPerNode,
          projectName: 'rlm-studio',
          runName,
        },
      });
    },
    client: ({ address, token }) =>
      new RayJobsClient({
        address,
        ...(token ? { token } : {}),
        ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
      }),
  };
}
