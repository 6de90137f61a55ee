// A GRPO job on a real local model: questions from an evidence dataset, rollouts as ordinary runs
// of the job's workspace sampled from the policy as it is now (its LoRA merged into the weights
// after every step), rewards from app/evidence, the policy trained through the engine.
import type { StepMetrics, TrainConfig } from '../../app/api/index.ts';
import {
  loadDataset,
  materialiseDatasetPapers,
  paperLookup,
  RubricJudge,
} from '../../app/evidence/index.ts';
import { composeEngine } from '../../app/host/index.ts';
import type { Provider } from '../../app/models/index.ts';
import { openWorkspace } from '../../app/store/index.ts';
import {
  createDecoder,
  loadLocalModel,
  LocalProvider,
  mergeLora,
  LoraPolicy,
  startBackend,
  type LocalModel,
  type LoraArrays,
  type LoraConfig,
} from '../engine/index.ts';
import type { TrainablePolicy } from './policy.ts';
import { rlmEnvironment } from './rlm-rollouts.ts';
import { runGrpoJob, TrainingInputError, type TrainJobResult } from './trainer.ts';

export interface LocalJobOptions {
  config: TrainConfig;
  dir: string;
  signal?: AbortSignal;
  onStep?: (metrics: StepMetrics) => void;
}

export async function runLocalJob(options: LocalJobOptions): Promise<TrainJobResult> {
  const { config } = options;
  if (!config.dataset) {
    throw new TrainingInputError('a job on a real model needs a dataset (config.dataset)');
  }
  if (!config.workspace) {
    throw new TrainingInputError('a job on a real model needs a workspace to store its rollouts');
  }
  const local = await loadLocalModel(config.baseModel);
  const lora = {
    rank: config.lora.rank,
    alpha: config.lora.alpha,
    targets: config.lora.targetModules,
  };
  const policy = new LoraPolicy(local, { lora, loraInit: { seed: config.seed } });
  const { provider: sampling, refresh } = await policySampler(local, adaptersOf(policy), lora, {
    temperature: config.temperature,
    maxTokens: config.maxTokensPerTurn,
  });

  const workspace = openWorkspace(config.workspace);
  const engine = composeEngine({
    workspace,
    shell: 'serve',
    providers: { policy: () => sampling },
  });
  try {
    const dataset = await loadDataset(config.dataset.path, config.dataset.format, {
      ...(config.dataset.multiPaper ? { multiPaper: true } : {}),
    });
    await materialiseDatasetPapers(engine.papers, dataset, config.dataset.path);
    const questions = dataset.questions.slice(0, config.dataset.limit ?? dataset.questions.length);
    const papersOf = paperLookup(dataset, engine.papers);
    const judge =
      config.reward === 'rubric' && config.judge
        ? new RubricJudge({ provider: await engine.providers(config.judge) })
        : undefined;
    const environment = rlmEnvironment({
      runs: engine.runs,
      store: engine.runStore,
      model: () => 'policy:current',
      budgets: {
        maxTurns: config.maxTurns,
        maxDepth: config.maxDepth,
        maxChildrenPerCall: Math.max(1, config.maxChildren),
      },
      papersOf,
      judge,
    });
    return await runGrpoJob({
      policy: samplingFollows(policy, refresh),
      questions,
      ...environment,
      config,
      dir: options.dir,
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.onStep ? { onStep: options.onStep } : {}),
    });
  } finally {
    await engine.dispose();
    workspace.close();
    policy.dispose();
  }
}

/**
 * A provider sampling from the policy as it is now (spec 'policy:current'); `refresh()` merges the
 * current adapters into the weights, after each optimizer step and checkpoint load.
 */
export async function policySampler(
  local: LocalModel,
  adapters: () => Promise<LoraArrays>,
  lora: LoraConfig,
  options: { temperature: number; maxTokens: number },
): Promise<{ provider: Provider; refresh: () => Promise<void> }> {
  const backend = await startBackend('wasm');
  let sampler: LocalProvider | null = null;
  const refresh = async () => {
    const model = mergeLora(local.model, lora, await adapters());
    sampler = new LocalProvider({
      spec: 'policy:current',
      local: { ...local, model },
      decoder: createDecoder(model, backend, { maxBatch: 4 }),
      defaultMaxTokens: options.maxTokens,
    });
  };
  await refresh();
  const provider: Provider = {
    spec: 'policy:current',
    complete: (request) => {
      if (!sampler) throw new TrainingInputError('the policy sampler is not ready');
      return sampler.complete({ ...request, temperature: options.temperature });
    },
  };
  return { provider, refresh };
}

/** The adapters of a LoRA policy as they are now. */
export function adaptersOf(policy: LoraPolicy): () => Promise<LoraArrays> {
  return () => policy.trainer.adapterArrays();
}

/** The policy, with the sampler brought up to date after every step and checkpoint load. */
export function samplingFollows(
  policy: TrainablePolicy,
  refresh: () => Promise<void>,
): TrainablePolicy {
  return {
    encodeTurn: policy.encodeTurn.bind(policy),
    score: policy.score.bind(policy),
    saveCheckpoint: policy.saveCheckpoint.bind(policy),
    step: async (options) => {
      const result = await policy.step(options);
      await refresh();
      return result;
    },
    loadCheckpoint: async (dir) => {
      await policy.loadCheckpoint(dir);
      await refresh();
    },
  };
}
