// `rlm-studio cluster`: export a training job in SkyRL's formats, then submit and follow it on a Ray
// cluster through the Ray Jobs REST API. The address and token come from flags, RAY_ADDRESS and
// RAY_JOB_TOKEN, or else what Settings > Cluster saved in the workspace.
import { existsSync } from 'node:fs';
import { Command } from 'commander';
import { TrainConfig } from '../../app/api/index.ts';
import { workspaceOption, type GlobalOptions } from './index.ts';
import { readRayJobFile, savedClusterConnection } from '../index.ts';
import { FileApiKeyVault } from '../../app/models/index.ts';
import { loadDataset, paperLookup, toSkyrlRow } from '../../app/evidence/index.ts';
import { PaperLibrary } from '../../app/papers/index.ts';
import { openWorkspace } from '../../app/store/index.ts';
import { exportSkyRlJob, RayJobsClient, RayJobsError } from '../../training/cluster/index.ts';
import { positive } from './options.ts';

interface ClusterOptions {
  address?: string;
  token?: string;
}

/** Flags first, then RAY_ADDRESS / RAY_JOB_TOKEN, then what Settings > Cluster saved. */
async function client(options: ClusterOptions, command: Command): Promise<RayJobsClient> {
  let address = options.address ?? process.env.RAY_ADDRESS;
  let token = options.token ?? process.env.RAY_JOB_TOKEN;
  const dir = workspaceOption(command.optsWithGlobals<GlobalOptions>());
  if ((!address || !token) && existsSync(dir)) {
    const workspace = openWorkspace(dir);
    try {
      const saved = await savedClusterConnection(workspace.db, new FileApiKeyVault(dir));
      address ??= saved.address ?? undefined;
      token ??= saved.token;
    } finally {
      workspace.close();
    }
  }
  if (!address) {
    throw new RayJobsError(
      'no Ray cluster address: pass --address http://head-node:8265, set RAY_ADDRESS, or save one in Settings > Cluster',
      null,
    );
  }
  return new RayJobsClient({ address, ...(token ? { token } : {}) });
}

const withCluster = (command: Command) =>
  command
    .option('--address <url>', 'the Ray dashboard address (default: RAY_ADDRESS)')
    .option('--token <token>', 'a bearer token for the cluster (default: RAY_JOB_TOKEN)');

interface ExportOptions {
  dataset: string;
  format: string;
  out: string;
  remoteDir: string;
  upload: boolean;
  skyrlDir?: string;
  model: string;
  valFraction: number;
  groupSize: number;
  batchSize: number;
  lr: number;
  beta: number;
  loraRank: number;
  steps: number;
  nodes: number;
  gpusPerNode: number;
  name: string;
  workspace?: string;
}

function exportCommand(): Command {
  return new Command('export')
    .description("a dataset and training config in SkyRL's formats, with its launch script")
    .requiredOption('--dataset <file>', 'the evidence dataset')
    .requiredOption('--format <format>', 'ours, skyrl or qasper')
    .requiredOption('--out <dir>', 'the folder to write')
    .requiredOption(
      '--remote-dir <dir>',
      'where the folder will be on the cluster (with --upload: where checkpoints go)',
    )
    .option(
      '--upload',
      "submit uploads the folder as the job's working directory (≤ 500 MiB)",
      false,
    )
    .option(
      '--skyrl-dir <dir>',
      "SkyRL's skyrl-train checkout on the cluster (needed with --upload)",
    )
    .requiredOption('--model <id>', 'the base model as the cluster names it (e.g. Qwen/Qwen3-4B)')
    .option('--val-fraction <x>', 'share held out for validation', Number, 0.1)
    .option('--group-size <n>', 'G rollouts per question', positive, 8)
    .option('--batch-size <n>', 'questions per step', positive, 16)
    .option('--lr <x>', 'learning rate', positive, 1e-6)
    .option('--beta <x>', 'KL coefficient', Number, 0.01)
    .option('--lora-rank <n>', 'LoRA rank', positive, 16)
    .option('--steps <n>', 'training steps', positive, 100)
    .option('--nodes <n>', 'cluster nodes', positive, 1)
    .option('--gpus-per-node <n>', 'GPUs per node', positive, 8)
    .option('--name <name>', 'run name', 'rlm-grpo')
    .option('--workspace <dir>', 'the workspace holding paper sets (datasets in our format)')
    .action(runExport);
}

async function runExport(options: ExportOptions): Promise<void> {
  const dataset = await loadDataset(options.dataset, options.format);
  const workspace = options.workspace ? openWorkspace(options.workspace) : null;
  const library = workspace ? new PaperLibrary(workspace.db) : null;
  try {
    const papersOf = paperLookup(dataset, library);
    const config = TrainConfig.parse({
      baseModel: options.model,
      lora: { rank: options.loraRank },
      groupSize: options.groupSize,
      batchSize: options.batchSize,
      learningRate: options.lr,
      beta: options.beta,
      steps: options.steps,
    });
    const rows = dataset.questions.map((q) => toSkyrlRow(q, papersOf(q), config.maxTurns));
    const result = await exportSkyRlJob(rows, config, {
      out: options.out,
      remoteDir: options.remoteDir,
      remoteModel: options.model,
      valFraction: options.valFraction,
      upload: options.upload,
      skyrlDir: options.skyrlDir,
      cluster: {
        nodes: options.nodes,
        gpusPerNode: options.gpusPerNode,
        projectName: 'rlm-studio',
        runName: options.name,
      },
    });
    for (const issue of dataset.issues) console.error(`dataset: ${issue.reason}`);
    console.log(
      `${result.trainRows} train and ${result.valRows} validation rows; wrote ${result.files.join(', ')}`,
    );
    console.log(
      options.upload
        ? `submit uploads the folder: rlm-studio cluster submit --dir ${options.out}`
        : `copy ${options.out} to ${options.remoteDir} on the cluster, then: rlm-studio cluster submit --dir ${options.out}`,
    );
  } finally {
    await library?.dispose();
    workspace?.close();
  }
}

export function clusterCommand(): Command {
  const cluster = new Command('cluster').description(
    'SkyRL export and Ray jobs for training that outgrows this machine',
  );
  cluster.addCommand(exportCommand());
  cluster.addCommand(
    withCluster(new Command('submit'))
      .description(
        "submit an exported job's entrypoint to the Ray cluster (uploading the folder when it was exported with --upload)",
      )
      .requiredOption('--dir <dir>', 'the folder `cluster export` wrote')
      .action(async (options: ClusterOptions & { dir: string }, command: Command) => {
        const job = await readRayJobFile(options.dir);
        const ray = await client(options, command);
        const workingDir = job.upload ? await ray.uploadWorkingDir(options.dir) : null;
        const { submissionId } = await ray.submit({
          entrypoint: job.entrypoint,
          metadata: job.metadata,
          ...(workingDir === null ? {} : { runtimeEnv: { working_dir: workingDir } }),
        });
        console.log(submissionId);
      }),
  );
  cluster.addCommand(
    withCluster(new Command('status'))
      .argument('<id>', 'the submission id')
      .action(async (id: string, options: ClusterOptions, command: Command) => {
        const details = await (await client(options, command)).status(id);
        console.log(`${details.status}${details.message ? `: ${details.message}` : ''}`);
      }),
  );
  cluster.addCommand(
    withCluster(new Command('logs'))
      .argument('<id>', 'the submission id')
      .action(async (id: string, options: ClusterOptions, command: Command) => {
        process.stdout.write(await (await client(options, command)).logs(id));
      }),
  );
  cluster.addCommand(
    withCluster(new Command('stop'))
      .argument('<id>', 'the submission id')
      .action(async (id: string, options: ClusterOptions, command: Command) => {
        console.log(
          (await (await client(options, command)).stop(id)) ? 'stopping' : 'it was not running',
        );
      }),
  );
  return cluster;
}
