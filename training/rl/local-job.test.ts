// A GRPO step end to end on a real model: stories260K (it cannot follow the scaffold, so its
// rewards are 0), rollouts as runs of the workspace through the real REPL, metrics and a checkpoint.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TrainConfig } from '../../app/api/index.ts';
import { openWorkspace } from '../../app/store/index.ts';
import { RunStore } from '../../app/store/index.ts';
import { STORIES260K } from '../engine/loading/stories.test-support.ts';
import { JobFiles } from './job-files.ts';
import { judgeProvider, runLocalJob } from './local-job.ts';
import { testRolloutEngine } from './rollout-engine.test-support.ts';
import { sendOpenAIStream, startFakeServer } from '../../app/models/fake-servers.test-support.ts';
import type { Provider } from '../../app/models/index.ts';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rlm-local-job-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const row = (question: string, evidence: string) => ({
  prompt: `Find evidence for the query: ${question}\nReturn a list.`,
  reward_spec: { evidence: [{ paperId: 'p1', selections: [{ text: evidence }] }] },
  extra_info: {
    context_text: JSON.stringify({
      p1: '### PAPER: Encoders\n<abstract>\nWe compare encoders.\n</abstract>\nWe use a BiLSTM encoder. It has 2 layers.',
    }),
  },
});

describe('runLocalJob', () => {
  it('trains a real local model on rollouts stored as runs of the workspace', async () => {
    const dataset = join(dir, 'tiny.jsonl');
    writeFileSync(
      dataset,
      [
        row('Which encoder?', 'We use a BiLSTM encoder.'),
        row('How many layers?', 'It has 2 layers.'),
      ]
        .map((r) => JSON.stringify(r))
        .join('\n'),
    );
    // llama2.c checkpoints find their tokenizer beside them as tokenizer.bin or the one tok*.bin.
    const config = TrainConfig.parse({
      baseModel: STORIES260K.checkpoint,
      lora: { rank: 2, alpha: 4, targetModules: ['wq', 'wv'] },
      dataset: { path: dataset, format: 'skyrl' },
      workspace: join(dir, 'ws'),
      groupSize: 2,
      batchSize: 1,
      maxTurns: 1,
      maxTokensPerTurn: 24,
      reward: 'span-f1',
      steps: 1,
      checkpointEvery: 1,
      learningRate: 1e-3,
    });
    const result = await runLocalJob({
      config,
      dir: join(dir, 'job'),
      openEngine: testRolloutEngine,
    });
    expect(result.steps).toBe(1);
    const [metrics] = result.metrics;
    expect(metrics?.groups[0]?.rollouts).toHaveLength(2);
    expect(metrics?.rewardMean).toBe(0);
    expect((await new JobFiles(join(dir, 'job')).readState())?.step).toBe(1);
    const workspace = openWorkspace(join(dir, 'ws'));
    try {
      const runs = new RunStore(workspace.db).list();
      expect(runs.map((r) => r.id).sort()).toEqual(
        (metrics?.groups[0]?.rollouts ?? []).map((r) => r.runId).sort(),
      );
      // Each rollout samples with its own seed, named in its model spec.
      const models = runs.map((r) => r.model);
      expect(models.every((m) => /^policy:\d+$/.test(m))).toBe(true);
      expect(new Set(models).size).toBe(models.length);
    } finally {
      workspace.close();
    }
  }, 120_000);
});

describe('judgeProvider', () => {
  it("uses the saved endpoint the app resolved, with its key and not the environment's", async () => {
    const server = await startFakeServer((_request, response) => {
      sendOpenAIStream(response, ['{"score": 1}']);
    });
    const before = process.env.OPENAI_API_KEY;
    process.env.OPENAI_API_KEY = 'sk-from-the-environment';
    try {
      const unused = (): Provider => {
        throw new Error('the engine was asked for a provider');
      };
      const provider = await judgeProvider(
        'endpoint:Judge',
        { spec: `openai-compatible:judge@${server.origin}/v1`, apiKey: 'sk-from-the-keychain' },
        unused,
      );
      const reply = await provider.complete({
        messages: [{ role: 'user', content: 'grade' }],
        agentId: 'judge',
        turn: 0,
      });
      expect(reply.text).toBe('{"score": 1}');
      expect(server.requests[0]?.headers.authorization).toBe('Bearer sk-from-the-keychain');
    } finally {
      if (before === undefined) delete process.env.OPENAI_API_KEY;
      else process.env.OPENAI_API_KEY = before;
      await server.close();
    }
  });

  it('leaves any other judge spec to the engine', async () => {
    const asked: string[] = [];
    const made = { spec: 'scripted:judge.json' } as Provider;
    const provider = await judgeProvider('scripted:judge.json', undefined, (spec) => {
      asked.push(spec);
      return made;
    });
    expect(provider).toBe(made);
    expect(asked).toEqual(['scripted:judge.json']);
  });
});
