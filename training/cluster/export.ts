// A training job packed for a SkyRL cluster: the dataset as SkyRL rows (train and validation split),
// the config as Hydra overrides, the launch script and the Ray entrypoint, in one folder that is
// copied to the cluster's shared storage at `remoteDir`, or (`upload`) sent with the job as its
// working directory, the data paths then resolved where Ray unpacks it.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { TrainConfig } from '../../app/api/index.ts';
import type { SkyrlRow } from '../../app/evidence/index.ts';
import {
  jobDirPath,
  skyrlEntrypoint,
  skyrlLaunchScript,
  skyrlOverrides,
  type SkyRlCluster,
} from './skyrl-config.ts';

export interface SkyRlExport {
  out: string;
  /**
   * Where `out` will be on the cluster (the data paths in the config point there); with `upload`,
   * where checkpoints go.
   */
  remoteDir: string;
  /** The folder goes with the job as its working directory (`cluster submit` uploads it). */
  upload?: boolean;
  /** SkyRL's skyrl-train checkout on the cluster (needed with `upload`). */
  skyrlDir?: string | undefined;
  /** The base model as the cluster names it (a Hugging Face id or a path there). */
  remoteModel: string;
  /** Share of rows held out for validation (every k-th row, so the split is stable). */
  valFraction: number;
  cluster: SkyRlCluster;
}

export interface SkyRlExportResult {
  files: string[];
  trainRows: number;
  valRows: number;
  entrypoint: string;
}

export class ClusterExportError extends Error {
  override name = 'ClusterExportError';
}

export async function exportSkyRlJob(
  rows: readonly SkyrlRow[],
  config: TrainConfig,
  options: SkyRlExport,
): Promise<SkyRlExportResult> {
  if (rows.length < 2) {
    throw new ClusterExportError(
      `a training set needs at least 2 rows to split; this one has ${rows.length}`,
    );
  }
  if (!(options.valFraction >= 0 && options.valFraction < 1)) {
    throw new ClusterExportError(
      `the validation share must be in [0, 1); got ${options.valFraction}`,
    );
  }
  const every =
    options.valFraction === 0 ? Infinity : Math.max(2, Math.round(1 / options.valFraction));
  const train: SkyrlRow[] = [];
  const val: SkyrlRow[] = [];
  rows.forEach((row, i) => ((i + 1) % every === 0 ? val : train).push(row));
  const upload = options.upload ?? false;
  if (upload && options.skyrlDir === undefined) {
    throw new ClusterExportError(
      "an uploaded folder becomes the job's working directory, so say where SkyRL's skyrl-train checkout is on the cluster",
    );
  }
  const remote = options.remoteDir.replace(/\/+$/, '');
  const dataPath = (name: string) => (upload ? jobDirPath(name) : `${remote}/${name}`);
  const launch = { skyrlDir: options.skyrlDir, jobDirFromStart: upload };
  const overrides = skyrlOverrides(
    config,
    {
      trainData: [dataPath('train.jsonl')],
      valData: val.length > 0 ? [dataPath('val.jsonl')] : [],
      checkpointDir: `${remote}/checkpoints`,
      modelPath: options.remoteModel,
    },
    options.cluster,
  );
  const entrypoint = skyrlEntrypoint(overrides, launch);
  await mkdir(options.out, { recursive: true });
  const files: [string, string][] = [
    ['train.jsonl', lines(train)],
    ['val.jsonl', lines(val)],
    ['overrides.json', `${JSON.stringify(Object.fromEntries(overrides), null, 2)}\n`],
    ['run.sh', skyrlLaunchScript(overrides, launch)],
    [
      'ray-job.json',
      // The app finds its jobs on a cluster by `app`, whoever submitted them (cluster.findJobs);
      // `upload` tells `cluster submit` to send the folder along.
      `${JSON.stringify({ entrypoint, upload, metadata: { app: 'rlm-studio', name: options.cluster.runName } }, null, 2)}\n`,
    ],
    ['train-config.json', `${JSON.stringify(config, null, 2)}\n`],
  ];
  for (const [name, text] of files) {
    await writeFile(join(options.out, name), text, name === 'run.sh' ? { mode: 0o755 } : {});
  }
  return {
    files: files.map(([name]) => join(options.out, name)),
    trainRows: train.length,
    valRows: val.length,
    entrypoint,
  };
}

function lines(rows: readonly SkyrlRow[]): string {
  return rows.map((row) => `${JSON.stringify(row)}\n`).join('');
}
