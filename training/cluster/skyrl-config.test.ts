import { describe, expect, it } from 'vitest';
import { TrainConfig } from '../../app/api/index.ts';
import {
  overrideArguments,
  skyrlEntrypoint,
  skyrlLaunchScript,
  skyrlOverrides,
} from './skyrl-config.ts';

// Keys of skyrl_train's config/ppo_base_config.yaml (SkyRL 0.2-0.3 series), written out by hand from
// that file: an override of any other key fails Hydra's strict struct mode on the cluster.
const SKYRL_KEYS = new Set([
  'data.train_data',
  'data.val_data',
  'trainer.policy.model.path',
  'trainer.policy.model.lora.rank',
  'trainer.policy.model.lora.alpha',
  'trainer.policy.model.lora.target_modules',
  'trainer.placement.policy_num_nodes',
  'trainer.placement.policy_num_gpus_per_node',
  'trainer.placement.ref_num_nodes',
  'trainer.placement.ref_num_gpus_per_node',
  'trainer.policy.optimizer_config.lr',
  'trainer.algorithm.advantage_estimator',
  'trainer.algorithm.use_kl_loss',
  'trainer.algorithm.kl_loss_coef',
  'trainer.algorithm.eps_clip_low',
  'trainer.algorithm.eps_clip_high',
  'trainer.algorithm.loss_reduction',
  'trainer.train_batch_size',
  'trainer.policy_mini_batch_size',
  'trainer.seed',
  'trainer.ckpt_path',
  'trainer.ckpt_interval',
  'trainer.project_name',
  'trainer.run_name',
  'generator.n_samples_per_prompt',
  'generator.max_turns',
  'generator.max_num_seqs',
  'generator.sampling_params.max_generate_length',
  'generator.inference_engine_tensor_parallel_size',
  'generator.num_inference_engines',
  'environment.env_class',
]);

const config = TrainConfig.parse({
  baseModel: 'Qwen/Qwen3-4B',
  lora: { rank: 16, alpha: 32 },
  groupSize: 8,
  batchSize: 16,
  beta: 0.01,
});
const paths = {
  trainData: ['/data/rlm/train.jsonl'],
  valData: ['/data/rlm/val.jsonl'],
  checkpointDir: "/ckpt/it's here",
  modelPath: 'Qwen/Qwen3-4B',
};
const cluster = { nodes: 1, gpusPerNode: 8, projectName: 'rlm', runName: 'grpo-1' };

describe('skyrlOverrides', () => {
  it('writes only keys of the SkyRL base config, each once', () => {
    const overrides = skyrlOverrides(config, paths, cluster);
    const keys = overrides.map(([key]) => key);
    expect(keys.filter((key) => !SKYRL_KEYS.has(key))).toEqual([]);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('carries the recipe: GRPO, G samples per prompt, the KL coefficient, LoRA, the token budget', () => {
    const values = new Map(skyrlOverrides(config, paths, cluster));
    expect(values.get('trainer.algorithm.advantage_estimator')).toBe('grpo');
    expect(values.get('generator.n_samples_per_prompt')).toBe(8);
    expect(values.get('trainer.algorithm.use_kl_loss')).toBe(true);
    expect(values.get('trainer.algorithm.kl_loss_coef')).toBe(0.01);
    expect(values.get('trainer.policy.model.lora.rank')).toBe(16);
    expect(values.get('generator.sampling_params.max_generate_length')).toBe(1024);
    expect(values.get('trainer.algorithm.loss_reduction')).toBe('sequence_mean');
    const tokenMean = TrainConfig.parse({ ...config, weighting: 'token-mean', beta: 0 });
    const reference = new Map(skyrlOverrides(tokenMean, paths, cluster));
    expect(reference.get('trainer.algorithm.loss_reduction')).toBe('token_mean');
    expect(reference.get('trainer.algorithm.use_kl_loss')).toBe(false);
  });
});

describe('the launch command', () => {
  it('quotes values for a POSIX shell and writes Hydra lists', () => {
    const args = overrideArguments(skyrlOverrides(config, paths, cluster));
    expect(args).toContain(`'data.train_data=["/data/rlm/train.jsonl"]'`);
    expect(args).toContain(`'trainer.ckpt_path=/ckpt/it'\\''s here'`);
    expect(args).toContain('trainer.algorithm.use_kl_loss=true');
    expect(skyrlEntrypoint(skyrlOverrides(config, paths, cluster))).toMatch(
      /^uv run --isolated --extra vllm -m skyrl_train\.entrypoints\.main_base /,
    );
    const script = skyrlLaunchScript(skyrlOverrides(config, paths, cluster));
    expect(script.startsWith('#!/usr/bin/env bash\n')).toBe(true);
    expect(script.trimEnd().endsWith('\\')).toBe(false);
  });
});
