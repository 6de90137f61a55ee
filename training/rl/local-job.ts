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
  startBackend,
} from '../engine/index.ts';
import { EnginePolicy } from './engine-policy.ts';
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
  const policy = new EnginePolicy(local, {
    lora: { rank: config.lora.rank, alpha: config.lora.alpha, targets: config.lora.targetModules },
    learningRate: config.learningRate,
    seed: config.seed,
  });
  const backend = await startBackend('wasm');
  // The policy as it is now, for sampling: rebuilt after every optimizer step and checkpoint load.
  let sampler: LocalProvider | null = null;
  const refresh = async () => {
    const model = mergeLora(local.model, policy.lora, await policy.adapters());
    sampler = new LocalProvider({
      spec: 'policy:current',
      local: { ...local, model },
      decoder: createDecoder(model, backend, { maxBatch: 4 }),
      defaultMaxTokens: config.maxTokensPerTurn,
    });
  };
  const sampling: Provider = {
    spec: 'policy:current',
    complete: (request) => {
      if (!sampler) throw new TrainingInputError('the policy sampler is not ready');
      return sampler.complete({ ...request, temperature: config.temperature });
    },
  };

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
    const trainable = {
      encodeTurn: policy.encodeTurn.bind(policy),
      score: policy.score.bind(policy),
      saveCheckpoint: policy.saveCheckpoint.bind(policy),
      step: async () => {
        const result = await policy.step();
        await refresh();
        return result;
      },
      loadCheckpoint: async (dir: string) => {
        await policy.loadCheckpoint(dir);
        await refresh();
      },
    };
    await refresh();
    return await runGrpoJob({
      policy: trainable,
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
