// A training job in SkyRL's terms, for runs that outgrow one machine: Hydra overrides of
// skyrl_train's base PPO config (RLM-SPEC section 6) and the launch script that passes them.
// Only keys that exist in that config are written; the test holds the list it checks against.
import type { TrainConfig } from '../../app/api/index.ts';

export interface SkyRlPaths {
  /** Dataset files as the cluster sees them (JSON lines in SkyRL's row format). */
  trainData: string[];
  valData: string[];
  /** Where the cluster keeps checkpoints and exports. */
  checkpointDir: string;
  /** The base model as the cluster sees it (a Hugging Face id or a path there). */
  modelPath: string;
}

export interface SkyRlCluster {
  nodes: number;
  gpusPerNode: number;
  projectName: string;
  runName: string;
}

export type Override = readonly [key: string, value: string | number | boolean | null];

/** The overrides, in the order a reader expects them: data, policy, algorithm, generator. */
export function skyrlOverrides(
  config: TrainConfig,
  paths: SkyRlPaths,
  cluster: SkyRlCluster,
): Override[] {
  const promptsPerStep = config.batchSize;
  const samples = promptsPerStep * config.groupSize;
  return [
    ['data.train_data', pythonList(paths.trainData)],
    ['data.val_data', pythonList(paths.valData)],
    ['trainer.policy.model.path', paths.modelPath],
    ['trainer.placement.policy_num_nodes', cluster.nodes],
    ['trainer.placement.policy_num_gpus_per_node', cluster.gpusPerNode],
    ['trainer.placement.ref_num_nodes', cluster.nodes],
    ['trainer.placement.ref_num_gpus_per_node', cluster.gpusPerNode],
    ['trainer.policy.optimizer_config.lr', config.learningRate],
    ['trainer.policy.model.lora.rank', config.lora.rank],
    ['trainer.policy.model.lora.alpha', config.lora.alpha],
    ['trainer.policy.model.lora.target_modules', pythonList(config.lora.targetModules)],
    ['trainer.algorithm.advantage_estimator', 'grpo'],
    ['trainer.algorithm.use_kl_loss', config.beta > 0],
    ['trainer.algorithm.kl_loss_coef', config.beta],
    ['trainer.algorithm.eps_clip_low', config.clipLow],
    ['trainer.algorithm.eps_clip_high', config.clipHigh],
    // The write-up's 1/k_g weighting needs the RLM trainer's own loss reduction; plain SkyRL
    // reduces per token over the batch, which is our `token-mean`.
    [
      'trainer.algorithm.loss_reduction',
      config.weighting === 'token-mean' ? 'token_mean' : 'sequence_mean',
    ],
    ['trainer.train_batch_size', promptsPerStep],
    ['trainer.policy_mini_batch_size', promptsPerStep],
    ['trainer.seed', config.seed],
    ['trainer.ckpt_path', paths.checkpointDir],
    ['trainer.ckpt_interval', config.checkpointEvery],
    ['trainer.project_name', cluster.projectName],
    ['trainer.run_name', cluster.runName],
    ['generator.n_samples_per_prompt', config.groupSize],
    ['generator.max_turns', config.maxTurns],
    ['generator.max_num_seqs', Math.max(samples * (1 + config.maxChildren), 1)],
    ['generator.sampling_params.max_generate_length', config.maxTokensPerTurn],
    ['generator.inference_engine_tensor_parallel_size', 1],
    ['generator.num_inference_engines', cluster.nodes * cluster.gpusPerNode],
    ['environment.env_class', 'rlm'],
  ];
}

/** The overrides as one `key=value` argument each, quoted for a POSIX shell. */
export function overrideArguments(overrides: readonly Override[]): string[] {
  return overrides.map(([key, value]) => shellQuote(`${key}=${formatValue(value)}`));
}

/** How the job starts on the cluster. */
export interface SkyRlLaunch {
  /** SkyRL's skyrl-train checkout on the cluster; the job changes there before `uv run`. */
  skyrlDir?: string | undefined;
  /**
   * The job's folder is wherever it starts (Ray's working directory, or run.sh's own folder):
   * it is exported as JOB_DIR_VARIABLE before changing to `skyrlDir`, and data paths read it.
   */
  jobDirFromStart?: boolean;
}

/** The variable the data paths of an uploaded job read (`${oc.env:RLM_JOB_DIR}` in Hydra). */
export const JOB_DIR_VARIABLE = 'RLM_JOB_DIR';

/** A file of the job's folder as Hydra resolves it at run time, wherever Ray unpacked the folder. */
export function jobDirPath(name: string): string {
  return `\${oc.env:${JOB_DIR_VARIABLE}}/${name}`;
}

const LAUNCH = 'uv run --isolated --extra vllm -m skyrl_train.entrypoints.main_base';

/** The entrypoint command a Ray job runs. */
export function skyrlEntrypoint(overrides: readonly Override[], launch: SkyRlLaunch = {}): string {
  return [
    ...(launch.jobDirFromStart ? [`export ${JOB_DIR_VARIABLE}="$PWD" &&`] : []),
    ...(launch.skyrlDir === undefined ? [] : [`cd ${shellQuote(launch.skyrlDir)} &&`]),
    LAUNCH,
    ...overrideArguments(overrides),
  ].join(' ');
}

/** A launch script for people who start jobs by hand. */
export function skyrlLaunchScript(
  overrides: readonly Override[],
  launch: SkyRlLaunch = {},
): string {
  return [
    '#!/usr/bin/env bash',
    '# Written by RLM Studio: a GRPO run of the RLM evidence task on SkyRL.',
    'set -euo pipefail',
    ...(launch.jobDirFromStart
      ? [`export ${JOB_DIR_VARIABLE}="$(cd "$(dirname "$0")" && pwd)"`]
      : []),
    ...(launch.skyrlDir === undefined ? [] : [`cd ${shellQuote(launch.skyrlDir)}`]),
    `${LAUNCH} \\`,
    ...overrideArguments(overrides).map(
      (arg, i, all) => `  ${arg}${i < all.length - 1 ? ' \\' : ''}`,
    ),
    '',
  ].join('\n');
}

function formatValue(value: Override[1]): string {
  if (value === null) return 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  return String(value);
}

function pythonList(items: readonly string[]): string {
  return `[${items.map((item) => JSON.stringify(item)).join(',')}]`;
}

function shellQuote(text: string): string {
  return /^[\w./=:,-]+$/.test(text) ? text : `'${text.replaceAll("'", "'\\''")}'`;
}
