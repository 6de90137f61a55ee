// The recipe's model family through the trainer the app uses: a tiny random Qwen3.5 folder (bf16,
// the published checkpoints' layout, a thinking chat template) gets cold-start SFT with LoRA on
// its linear-attention and attention projections, then a job (SFT on a stored SFT set, then a GRPO
// step whose rollouts are runs of the workspace sampled from the policy through the real REPL).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TrainConfig } from '../../app/api/index.ts';
import { startBackend } from '../engine/kernels/backend.ts';
import { loadLocalModel, type LocalModel } from '../engine/loading/local-model.ts';
import { writeTinyQwen35Chat } from '../engine/loading/qwen35-reference.test-support.ts';
import { LoraPolicy } from '../engine/training/lora-policy.ts';
import { JobFiles } from './job-files.ts';
import { runLocalJob } from './local-job.ts';
import { testRolloutEngine } from './rollout-engine.test-support.ts';
import { runSftJob } from './sft.ts';
import { toyRun } from './toy-task.ts';
import { openWorkspace, RunStore, SftSetStore } from '../../app/store/index.ts';

const dir = mkdtempSync(join(tmpdir(), 'rlm-qwen35-job-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});
const folder = join(dir, 'qwen35');
writeTinyQwen35Chat(folder, 5);
const targets = ['in_proj_qkv', 'in_proj_z', 'out_proj', 'q_proj', 'v_proj'];

let local: LocalModel;
beforeAll(async () => {
  await startBackend('wasm');
  local = await loadLocalModel(folder);
});

describe('Qwen3.5 through the trainer', () => {
  it('SFT with LoRA on the DeltaNet and attention projections lowers the loss', async () => {
    const policy = new LoraPolicy(local, { lora: { rank: 4, alpha: 8, targets } });
    const messages = [{ role: 'user' as const, content: 'Which encoder?' }];
    const turns = [
      policy.encodeTurn(messages, 'FINAL("BiLSTM")'),
      policy.encodeTurn([{ role: 'user', content: 'How many layers?' }], 'FINAL("2")'),
    ];
    const metrics = await runSftJob({
      policy,
      turns,
      epochs: 6,
      batchSize: 2,
      learningRate: 2e-2,
      dir: join(dir, 'sft'),
    });
    expect(metrics).toHaveLength(6);
    expect(metrics.every((m) => m.phase === 'sft' && Number.isFinite(m.loss))).toBe(true);
    expect(metrics.at(-1)?.loss).toBeLessThan((metrics[0]?.loss ?? 0) * 0.8);
    expect((await new JobFiles(join(dir, 'sft')).readState())?.step).toBe(6);
  }, 120_000);

  it('runs SFT on a stored SFT set, then a GRPO step on rollouts sampled from the policy', async () => {
    const dataset = join(dir, 'tiny.jsonl');
    const row = {
      prompt: 'Find evidence for the query: Which encoder?\nReturn a list.',
      reward_spec: {
        evidence: [{ paperId: 'p1', selections: [{ text: 'We use a BiLSTM encoder.' }] }],
      },
      extra_info: {
        context_text: JSON.stringify({ p1: '### PAPER: Encoders\nWe use a BiLSTM encoder.' }),
      },
    };
    writeFileSync(dataset, JSON.stringify(row));
    // A teacher run in the job's workspace and an SFT set accepting it (as `dataset sft-set` makes).
    const workspace = openWorkspace(join(dir, 'ws'));
    try {
      new RunStore(workspace.db).insertRun(
        {
          id: 'teacher-1',
          question: 'Which encoder?',
          set: 'toy',
          model: 'teacher',
          source: 'test',
          createdAt: 1,
        },
        toyRun('Which encoder?', 'FINAL("BiLSTM")', undefined, { runId: 'teacher-1' }),
      );
      new SftSetStore(workspace.db).create({
        name: 'cold',
        dataset: 'tiny',
        evalId: 'e',
        cap: 48,
        createdAt: 1,
        runs: [{ runId: 'teacher-1', questionId: 'q', spanF1: 1, accepted: true, reason: null }],
      });
    } finally {
      workspace.close();
    }
    const config = TrainConfig.parse({
      sft: { set: 'cold', epochs: 2, batchSize: 1, learningRate: 1e-2 },
      baseModel: folder,
      lora: { rank: 2, alpha: 4, targetModules: targets },
      dataset: { path: dataset, format: 'skyrl' },
      workspace: join(dir, 'ws'),
      groupSize: 2,
      batchSize: 1,
      maxTurns: 1,
      maxTokensPerTurn: 16,
      reward: 'span-f1',
      steps: 1,
      checkpointEvery: 1,
      learningRate: 1e-3,
    });
    const phases: string[] = [];
    const result = await runLocalJob({
      config,
      dir: join(dir, 'grpo'),
      openEngine: testRolloutEngine,
      onStep: (m) => phases.push(m.phase),
    });
    // SFT's steps (one example, two epochs) come first, on the same step stream, then GRPO's.
    expect(phases).toEqual(['sft', 'sft', 'grpo']);
    expect((await new JobFiles(join(dir, 'grpo', 'sft')).readState())?.step).toBe(2);
    // The job's own metrics hold both phases, as the Train view reads them.
    const logged = await new JobFiles(join(dir, 'grpo')).readMetrics();
    expect(logged.map((m) => m.phase)).toEqual(['sft', 'sft', 'grpo']);
    expect(result.steps).toBe(1);
    const [metrics] = result.metrics;
    expect(metrics?.groups[0]?.rollouts).toHaveLength(2);
    // Random weights cannot follow the scaffold: reward 0, but the step and checkpoint happen.
    expect(metrics?.rewardMean).toBe(0);
    expect((await new JobFiles(join(dir, 'grpo')).readState())?.step).toBe(1);
    // Started again, the finished SFT phase is loaded, not run again.
    const again: string[] = [];
    await runLocalJob({
      config,
      dir: join(dir, 'grpo'),
      openEngine: testRolloutEngine,
      onStep: (m) => again.push(m.phase),
    });
    expect(again).not.toContain('sft');
    expect((await new JobFiles(join(dir, 'grpo')).readMetrics()).map((m) => m.phase)).toEqual([
      'sft',
      'sft',
      'grpo',
    ]);
  }, 180_000);
});
