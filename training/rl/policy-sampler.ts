// Rollouts of a local LoRA policy: a provider that samples from the policy as it is now (its
// adapters merged into the weights, refreshed after every optimizer step), seeded per rollout,
// and the prompt window it samples through, which the policy's training passes use too.
import type { Provider } from '../../app/models/index.ts';
import {
  createDecoder,
  LocalProvider,
  mergeLora,
  startBackend,
  type LocalModel,
  type LoraArrays,
  type LoraConfig,
  type LoraPolicy,
} from '../engine/index.ts';
import { mixSeed } from './grpo-step.ts';
import type { TrainablePolicy } from './policy.ts';
import { TrainingInputError } from './trainer.ts';

export interface SamplingOptions {
  temperature: number;
  /** Reply budget per turn, in tokens. */
  maxTokens: number;
  /** The context the sampler decodes in (default: the model's); longer prompts keep their end. */
  context?: number;
  /** Rollouts decoded together (default 4). */
  maxBatch?: number;
}

export interface SamplingWindow {
  context: number;
  maxNewTokens: number;
}

/** The window the sampler feeds the decoder: give it to LoraPolicy so training sees the same. */
export function samplingWindow(local: LocalModel, options: SamplingOptions): SamplingWindow {
  const limit = local.model.config.maxSeqLen;
  return {
    context: Math.min(options.context ?? limit, limit),
    maxNewTokens: options.maxTokens,
  };
}

export interface PolicySampler {
  /**
   * The provider for the spec `policy:TARGET`: TARGET a rollout's seed (each agent turn samples
   * with a seed mixed from it, the agent and the turn) or `current` (unseeded: the clock's).
   */
  provider: (target: string) => Provider;
  /** Merges the current adapters into the sampler's weights. */
  refresh: () => Promise<void>;
}

export async function policySampler(
  local: LocalModel,
  adapters: () => Promise<LoraArrays>,
  lora: LoraConfig,
  options: SamplingOptions,
): Promise<PolicySampler> {
  const backend = await startBackend('wasm');
  const window = samplingWindow(local, options);
  let sampler: LocalProvider | null = null;
  const refresh = async () => {
    const model = mergeLora(local.model, lora, await adapters());
    sampler = new LocalProvider({
      spec: 'policy:current',
      local: { ...local, model },
      decoder: createDecoder(model, backend, {
        maxBatch: options.maxBatch ?? 4,
        maxSeqLen: window.context,
      }),
      defaultMaxTokens: window.maxNewTokens,
      // The policy gradient assumes rollouts drawn from the policy itself: no nucleus cut.
      topP: 1,
    });
  };
  await refresh();
  const provider = (target: string): Provider => {
    const rolloutSeed = target === 'current' ? null : Number(target);
    if (rolloutSeed !== null && !Number.isSafeInteger(rolloutSeed)) {
      throw new TrainingInputError(
        `'policy:${target}' names no rollout seed: use policy:current or policy:<integer>`,
      );
    }
    return {
      spec: `policy:${target}`,
      complete: (request) => {
        if (!sampler) throw new TrainingInputError('the policy sampler is not ready');
        return sampler.complete({
          ...request,
          temperature: options.temperature,
          maxTokens: window.maxNewTokens,
          ...(rolloutSeed === null
            ? {}
            : { seed: mixSeed(rolloutSeed, textHash(request.agentId), request.turn) }),
        });
      },
    };
  };
  return { provider, refresh };
}

/** The model spec of a rollout sampled with `seed`. */
export function policySpec(seed: number): string {
  return `policy:${seed >>> 0}`;
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

/** FNV-1a of a string (agent ids such as '0.1'), for seed mixing. */
function textHash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}
