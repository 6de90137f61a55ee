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
