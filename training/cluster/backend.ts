// training/cluster as the engine host's ClusterBackend (app/host/cluster-handlers.ts): the Train
// view's "Export to cluster" reads the configured job's dataset and writes it in SkyRL's formats;
// its jobs panel talks to the cluster through RayJobsClient. bin/rlm-studio.js installs it.
import type { ClusterBackend } from '../../app/host/index.ts';
import { loadDataset, paperLookup, toSkyrlRow } from '../../app/evidence/index.ts';
import { ClusterExportError, exportSkyRlJob } from './export.ts';
import { RayJobsClient } from './ray-jobs.ts';

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
