import { describe, expect, it } from 'vitest';
import { jobConfig } from './job-config.ts';

const fields = {
  name: ' Big run ',
  baseModel: 'toy:bigram',
  rank: '16',
  alpha: '32',
  learningRate: '1e-6',
  groupSize: '8',
  batchSize: '4',
  beta: '0.01',
  maxTurns: '6',
  maxDepth: '1',
  maxChildren: '4',
  steps: '50',
  checkpointEvery: '10',
  reward: 'span-f1',
  weighting: 'token-mean',
  judge: '',
  datasetPath: '/data/q.jsonl',
  datasetFormat: 'skyrl',
};

describe('jobConfig', () => {
  it('carries a workspace dataset by name and SFT on a picked set', () => {
    const result = jobConfig({
      ...fields,
      datasetPath: '/ws/datasets/d1-train.jsonl',
      datasetFormat: 'ours',
      datasetName: 'my questions',
      sftSet: 'cold start',
      sftEpochs: '3',
      sftLearningRate: '2e-4',
      sftBatchSize: '2',
      targets: 'wq, wv',
      maxTokensPerTurn: '16',
    });
    expect(result.ok && result.config).toMatchObject({
      dataset: { path: '/ws/datasets/d1-train.jsonl', format: 'ours', name: 'my questions' },
      sft: { set: 'cold start', epochs: 3, learningRate: 2e-4, batchSize: 2 },
      lora: { targetModules: ['wq', 'wv'] },
      maxTokensPerTurn: 16,
    });
    const bad = jobConfig({ ...fields, sftSet: 'cold start', sftEpochs: '0' });
    expect(bad.ok ? null : bad.failure.message).toMatch(/^sft\.epochs: /);
    const none = jobConfig({ ...fields, sftSet: ' ' });
    expect(none.ok).toBe(true);
    expect(none.ok && Object.keys(none.config)).not.toContain('sft');
  });

  it('builds the TrainConfig both Launch and Export send', () => {
    const result = jobConfig(fields);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.name).toBe('Big run');
    expect(result.config).toMatchObject({
      lora: { rank: 16, alpha: 32 },
      batchSize: 4,
      reward: 'span-f1',
      weighting: 'token-mean',
      dataset: { path: '/data/q.jsonl', format: 'skyrl' },
    });
    expect(result.config.judge).toBeUndefined();
    const toy = jobConfig({ ...fields, datasetPath: '', name: '  ' });
    expect(toy.ok && toy.config.dataset === undefined && toy.name === 'run').toBe(true);
  });

  it('adds validation when it runs every N > 0 steps, and names a refused k', () => {
    const validated = jobConfig({
      ...fields,
      validateEvery: '5',
      validateK: '4',
      validateCount: '2',
    });
    expect(validated.ok && validated.config.validation).toEqual({ every: 5, k: 4, count: 2 });
    const off = jobConfig({ ...fields, validateEvery: '0', validateK: '4', validateCount: '2' });
    expect(off.ok && off.config.validation).toBeUndefined();
    const bad = jobConfig({ ...fields, validateEvery: '5', validateK: '0', validateCount: '2' });
    expect(bad.ok ? null : bad.failure.message).toMatch(/^validation\.k: /);
  });

  it('names the refused field', () => {
    expect(jobConfig({ ...fields, groupSize: '1' })).toEqual({
      ok: false,
      failure: {
        name: 'InvalidTrainConfig',
        message: expect.stringMatching(/^groupSize: /) as unknown,
      },
    });
  });
});
