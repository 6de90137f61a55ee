// `npm run bench:train`: a miniature of the published recipe on CPU (RLM-SPEC section 5). A toy
// evidence task (bench/train-task.ts), the real RLM scaffold and REPL, stories260K with LoRA as the
// policy. Scripted teacher traces become an SFT set of the workspace through the app's filter; then
// the job the Train view and `rlm-studio train` run (runLocalJob: SFT on that set, then GRPO, its
// folder, checkpoints and metrics) trains the policy. The bench only measures: held-out pass@16
// and mean reward before SFT, from the job's SFT checkpoint and from its last GRPO checkpoint, the
// curves, and one JSON line. Seeds are fixed and printed; the held-out questions (the same
// questions over papers never trained on) are never trained on, and settings are chosen with
// BENCH_DEV=1 (a third paper set) without looking at the held-out figures.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { TrainConfig, type StepMetrics } from '../app/api/index.ts';
import {
  evidencePaper,
  toOurRow,
  type EvidencePaper,
  type EvidenceQuestion,
} from '../app/evidence/index.ts';
import { composeEngine } from '../host/index.ts';
import { openWorkspace, SftSetStore } from '../app/store/index.ts';
import { loadLocalModel, LoraPolicy } from '../training/engine/index.ts';
import { mixSeed } from '../training/rl/grpo-step.ts';
import { JobFiles, runLocalJob, sftRejection } from '../training/rl/index.ts';
import {
  adaptersOf,
  policySampler,
  policySpec,
  samplingWindow,
} from '../training/rl/policy-sampler.ts';
import { rlmEnvironment } from '../training/rl/rlm-rollouts.ts';
import { selectSftTurns } from '../training/rl/sft.ts';
import { stepSamples } from '../training/rl/trajectory.ts';
import { storyThings, teacherReplies, toySet } from './train-task.ts';

const env = process.env;
const SEED = Number(env.BENCH_SEED ?? 1);
/** Evaluation rollouts use the same seeds at every checkpoint (before SFT, after SFT, after GRPO). */
const EVAL_SEED = 1000 + SEED;
const DEV = env.BENCH_DEV === '1';
/** 13 epochs of the 24 teacher turns in batches of 4: 78 SFT steps. */
const SFT_EPOCHS = Number(env.BENCH_SFT_EPOCHS ?? 13);
const GRPO_STEPS = Number(env.BENCH_GRPO_STEPS ?? 15);
const K = 16;
const settings = {
  lora: { rank: 8, alpha: 16, targets: ['wq', 'wk', 'wv', 'wo', 'w1', 'w2', 'w3'] },
  sampling: {
    temperature: Number(env.BENCH_TEMPERATURE ?? 0.7),
    maxTokens: 32,
    context: 256,
    maxBatch: 8,
  },
  sft: { batchSize: 4, learningRate: Number(env.BENCH_SFT_LR ?? 3e-3) },
  grpo: {
    groupSize: 8,
    batchSize: 4,
    // 3e-3 x the sampling temperature: turns are scored at T = 0.7, which scales the policy
    // gradient by 1/T against the T = 1 scoring this rate was first chosen with.
    learningRate: Number(env.BENCH_GRPO_LR ?? 2.1e-3),
    microBatch: 8,
  },
};
const began = performance.now();
const elapsed = () => ((performance.now() - began) / 1000).toFixed(0);
function log(line: string): void {
  console.log(`[${elapsed()} s] ${line}`);
}

const dir = mkdtempSync(join(tmpdir(), 'rlm-bench-train-'));
const workspaceDir = join(dir, 'ws');
const workspace = openWorkspace(workspaceDir);
const modelPath = new URL('../../shared/data/models/stories260K/stories260K.bin', import.meta.url)
  .pathname;
const local = await loadLocalModel(modelPath);
const { lora, sampling } = settings;
// The evaluation policy: LoRA initialised as the job's (B = 0: the base model) until it loads the
// job's checkpoints; its sampler serves the bench's own engine. The job trains its own.
const policy = new LoraPolicy(local, {
  lora,
  loraInit: { seed: SEED },
  window: samplingWindow(local, sampling),
});
const sampler = await policySampler(local, adaptersOf(policy), lora, sampling);
const engine = composeEngine({
  workspace,
  shell: 'serve',
  providers: { policy: (target) => sampler.provider(target) },
});

// Task data (fixed seeds, not the job's): the training set, and the dev and held-out sets (the
// same questions over other papers).
const sets = {
  toy: toySet('toy', storyThings, 11),
  'toy-dev': toySet('toy-dev', storyThings, 12),
  'toy-heldout': toySet('toy-heldout', storyThings, 13),
};
const papersBySet = new Map<string, EvidencePaper[]>();
for (const [set, { papers }] of Object.entries(sets)) {
  await engine.papers.importBytes(set, [
    { name: `${set}.json`, data: new TextEncoder().encode(JSON.stringify(papers)) },
  ]);
  papersBySet.set(
    set,
    engine.papers.store.texts(set).map((p) => evidencePaper(p.id, p.title, p.abstract, p.fullText)),
  );
}
const heldOut = DEV ? sets['toy-dev'].questions : sets['toy-heldout'].questions;
const trainSet = sets.toy.questions;
const budgets = { maxTurns: 1, maxDepth: 0 };
const task = rlmEnvironment({
  runs: engine.runs,
  store: engine.runStore,
  model: (rollout) => policySpec(rollout.seed),
  budgets,
  promptStyle: 'short',
  papersOf: (q) => papersBySet.get(q.set) ?? [],
});
await engine.runs.warm();

interface Evaluation {
  mean: number;
  pass: number;
  /** One sampled reply, to show what the policy writes. */
  example: string;
}

/** Mean reward and pass@k (share of questions with a reward > 0 in k samples) on `set`. */
async function evaluate(set: readonly EvidenceQuestion[], k: number): Promise<Evaluation> {
  const rollouts = await Promise.all(
    set.map(async (question, q) =>
      Promise.all(
        Array.from({ length: k }, async (_, index) => {
          const seed = mixSeed(EVAL_SEED, q, index);
          const outcome = await task.rollout(question, { step: 0, index, seed });
          const { reward } = await task.reward(question, outcome);
          return { reward, reply: stepSamples(outcome.events)[0]?.response ?? '' };
        }),
      ),
    ),
  );
  const flat = rollouts.flat();
  return {
    mean: flat.reduce((s, r) => s + r.reward, 0) / flat.length,
    pass: rollouts.filter((r) => r.some((x) => x.reward > 0)).length / set.length,
    example: flat[0]?.reply ?? '',
  };
}

const report = (when: string, e: Evaluation) => {
  log(
    `${when}: ${DEV ? 'dev' : 'held-out'} pass@${K} ${e.pass.toFixed(3)}, mean reward ${e.mean.toFixed(3)}; a reply: ${JSON.stringify(e.example)}`,
  );
};

console.log(
  `seeds: job ${SEED}, LoRA init ${SEED}, evaluation ${EVAL_SEED}; ${trainSet.length} training questions (SFT and GRPO) and ${heldOut.length} ${DEV ? 'dev' : 'held-out'} questions in set ${heldOut[0]?.set ?? '-'}`,
);
console.log(
  `settings: ${JSON.stringify(settings)}; SFT ${SFT_EPOCHS} epochs, GRPO ${GRPO_STEPS} steps`,
);
const before = await evaluate(heldOut, K);
report('before SFT', before);

// Teacher traces: the scripted model writes what a good policy would, over the real REPL.
const teacherRuns = await Promise.all(
  trainSet.flatMap((question) =>
    teacherReplies(question).map(async (reply, r) => {
      const file = join(dir, `teacher-${String(question.metadata.thing)}-${r}.json`);
      writeFileSync(file, JSON.stringify({ '0': [reply] }));
      const run = await engine.runs.start({
        set: question.set,
        question: question.question,
        model: `scripted:${file}`,
        budgets,
        promptStyle: 'short',
      });
      await run.finished;
      const events = engine.runStore.events(run.runId);
      const reward = await task.reward(question, { runId: run.runId, events });
      return { runId: run.runId, questionId: question.id, events, spanF1: reward.reward, reply };
    }),
  ),
);
const selection = selectSftTurns(teacherRuns, policy);
const [first] = selection.turns;
const replyTokens = selection.turns.map((t) => t.response.length);
log(
  `teacher traces: ${selection.accepted.length} kept, ${selection.rejected.length} dropped; span F1 by reply: ${[...new Set(teacherRuns.map((r) => r.reply.replace(/"\w+"/, '"X"')))].map((shape) => `${shape} ${mean(teacherRuns.filter((r) => r.reply.replace(/"\w+"/, '"X"') === shape).map((r) => r.spanF1)).toFixed(3)}`).join(', ')}; tokens per turn: prompt ${first?.prompt.length ?? 0}, reply ${Math.min(...replyTokens)} to ${Math.max(...replyTokens)}`,
);
// The SFT set as the app stores it (every run with the write-up's filter's verdict), and the
// training questions as a dataset file in our format.
new SftSetStore(workspace.db).create({
  name: 'teacher traces',
  dataset: 'toy',
  evalId: 'bench-teacher',
  cap: teacherRuns.length,
  createdAt: Date.now(),
  runs: teacherRuns.map((run) => {
    const reason = sftRejection(run.events, run.spanF1);
    return { ...run, accepted: reason === null, reason };
  }),
});
const datasetFile = join(dir, 'toy.jsonl');
writeFileSync(datasetFile, trainSet.map((q) => JSON.stringify(toOurRow(q))).join('\n') + '\n');

// The job: SFT on the set, then GRPO, through the same path as the Train view's.
const config = TrainConfig.parse({
  baseModel: modelPath,
  lora: { rank: lora.rank, alpha: lora.alpha, targetModules: lora.targets },
  learningRate: settings.grpo.learningRate,
  groupSize: settings.grpo.groupSize,
  batchSize: settings.grpo.batchSize,
  beta: 0,
  clipLow: 0.2,
  clipHigh: 0.2,
  maxTurns: budgets.maxTurns,
  maxDepth: budgets.maxDepth,
  maxTokensPerTurn: sampling.maxTokens,
  weighting: 'subtree-mean',
  reward: 'span-f1',
  dataset: { path: datasetFile, format: 'ours' },
  workspace: workspaceDir,
  temperature: sampling.temperature,
  promptStyle: 'short',
  sampling: { context: sampling.context, batch: sampling.maxBatch },
  microBatch: settings.grpo.microBatch,
  steps: GRPO_STEPS,
  checkpointEvery: GRPO_STEPS,
  seed: SEED,
  sft: {
    set: 'teacher traces',
    epochs: SFT_EPOCHS,
    learningRate: settings.sft.learningRate,
    batchSize: settings.sft.batchSize,
  },
});
const jobDir = join(dir, 'job');
const sftLoss: number[] = [];
const curve: number[] = [];
await runLocalJob({
  config,
  dir: jobDir,
  openEngine: (ws, providers) => composeEngine({ workspace: ws, shell: 'serve', providers }),
  onStep: (m: StepMetrics) => {
    if (m.phase === 'sft') {
      sftLoss.push(m.loss);
      if (m.step % 10 === 0) log(`SFT step ${m.step}: loss ${m.loss.toFixed(4)}`);
      return;
    }
    curve.push(m.rewardMean ?? 0);
    log(
      `GRPO step ${m.step}: train reward ${m.rewardMean?.toFixed(3) ?? '-'} (min ${m.rewardMin?.toFixed(2) ?? '-'}, max ${m.rewardMax?.toFixed(2) ?? '-'}), loss ${m.loss.toFixed(4)}, grad norm ${m.gradNorm.toFixed(3)}, entropy ${m.entropy?.toFixed(3) ?? '-'}`,
    );
  },
});

/** The held-out figures of the policy a job folder's last checkpoint holds. */
async function evaluateCheckpoint(folder: string): Promise<Evaluation> {
  const state = await new JobFiles(folder).readState();
  if (!state) throw new Error(`the job left no checkpoint in ${folder}`);
  await policy.loadCheckpoint(state.checkpoint);
  await sampler.refresh();
  return evaluate(heldOut, K);
}
const afterSft = await evaluateCheckpoint(join(jobDir, 'sft'));
report('after SFT', afterSft);
const afterGrpo = await evaluateCheckpoint(jobDir);
report('after GRPO', afterGrpo);

await engine.dispose();
workspace.close();
policy.dispose();
rmSync(dir, { recursive: true, force: true });
const gain = afterGrpo.mean - afterSft.mean;
const goals = {
  before_sft_pass_is_0: before.pass === 0,
  after_sft_pass_above_0: afterSft.pass > 0,
  grpo_gain_at_least_0_2: gain >= 0.2,
};
console.log(
  `goals: ${JSON.stringify(goals)}; load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
const round = (x: number) => Number(x.toFixed(4));
console.log(
  JSON.stringify({
    split: DEV ? 'dev' : 'held-out',
    seed: SEED,
    eval_seed: EVAL_SEED,
    pass_at_16_before_sft: before.pass,
    pass_at_16_after_sft: afterSft.pass,
    pass_at_16_after_grpo: afterGrpo.pass,
    heldout_reward_before_sft: round(before.mean),
    heldout_reward_after_sft: round(afterSft.mean),
    heldout_reward_after_grpo: round(afterGrpo.mean),
    grpo_gain_abs: round(gain),
    sft_epochs: SFT_EPOCHS,
    sft_steps: sftLoss.length,
    sft_final_loss_nats: round(sftLoss.at(-1) ?? NaN),
    grpo_steps: GRPO_STEPS,
    train_reward_curve: curve.map((r) => Number(r.toFixed(3))),
    wall_s: Number(elapsed()),
    load_avg_1min: round(loadavg()[0] ?? 0),
  }),
);

function mean(values: readonly number[]): number {
  return values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);
}
