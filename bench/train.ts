// `npm run bench:train`: a miniature of the published recipe on CPU (RLM-SPEC section 5). A toy
// evidence task (find the one sentence about a given thing in a set of one-sentence papers), the
// real RLM scaffold and REPL, stories260K with LoRA as the policy. Prints pass@16 before SFT, after
// SFT on scripted teacher traces, then the held-out mean reward before and after GRPO, the curve,
// and one JSON line. Seeds are fixed and printed; the held-out questions are never trained on.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { evidencePaper, type EvidenceQuestion } from '../app/evidence/index.ts';
import { composeEngine } from '../app/host/index.ts';
import { openWorkspace } from '../app/store/index.ts';
import { loadLocalModel, LoraPolicy } from '../training/engine/index.ts';
import { adaptersOf, policySampler, samplingFollows } from '../training/rl/local-job.ts';
import { rlmEnvironment } from '../training/rl/rlm-rollouts.ts';
import { runSftJob, selectSftTurns } from '../training/rl/sft.ts';
import { runGrpoJob } from '../training/rl/trainer.ts';

const SEED = Number(process.env.BENCH_SEED ?? 1);
const GRPO_STEPS = Number(process.env.BENCH_GRPO_STEPS ?? 20);
const SFT_EPOCHS = Number(process.env.BENCH_SFT_EPOCHS ?? 40);
const TEMPERATURE = Number(process.env.BENCH_TEMPERATURE ?? 0.7);
const began = performance.now();
const elapsed = () => ((performance.now() - began) / 1000).toFixed(0);

const things = [
  'cat',
  'dog',
  'bird',
  'fish',
  'ball',
  'tree',
  'cake',
  'frog',
  'duck',
  'bear',
  'boat',
  'sun',
];
const colours = [
  'red',
  'blue',
  'green',
  'big',
  'small',
  'happy',
  'sad',
  'old',
  'new',
  'soft',
  'tall',
  'hot',
];
const sentence = (i: number) => `The ${things[i] ?? ''} is ${colours[i] ?? ''}.`;
const heldOutWords = new Set(['frog', 'duck', 'bear', 'boat']);

const dir = mkdtempSync(join(tmpdir(), 'rlm-bench-train-'));
const workspace = openWorkspace(join(dir, 'ws'));
const modelPath = new URL('../../shared/data/models/stories260K/stories260K.bin', import.meta.url)
  .pathname;
const local = await loadLocalModel(modelPath);
const lora = { rank: 8, alpha: 16, targets: ['wq', 'wk', 'wv', 'wo', 'w1', 'w2', 'w3'] };
const policy = new LoraPolicy(local, { lora, loraInit: { seed: SEED } });
const sampler = await policySampler(local, adaptersOf(policy), lora, {
  temperature: TEMPERATURE,
  maxTokens: 64,
});
const engine = composeEngine({
  workspace,
  shell: 'serve',
  providers: { policy: () => sampler.provider },
});

// The paper set: one sentence each; the question names the thing, the answer is its sentence.
const papers = Object.fromEntries(
  things.map((thing, i) => [
    `p${i}`,
    {
      title: `Note ${i}`,
      abstract: '',
      full_text: [{ section_name: null, paragraphs: [sentence(i)] }],
    },
  ]),
);
await engine.papers.importBytes('toy', [
  { name: 'toy.json', data: new TextEncoder().encode(JSON.stringify(papers)) },
]);
const questions: EvidenceQuestion[] = things.map((thing, i) => ({
  id: thing,
  question: `Which sentence is about the ${thing}?`,
  set: 'toy',
  paperIds: null,
  gold: [{ paperId: `p${i}`, text: sentence(i) }],
  metadata: {},
}));
const train = questions.filter((q) => !heldOutWords.has(q.id));
const heldOut = questions.filter((q) => heldOutWords.has(q.id));
const papersOf = (q: EvidenceQuestion) =>
  engine.papers.store.texts(q.set).map((p) => evidencePaper(p.id, p.title, p.abstract, p.fullText));
const budgets = { maxTurns: 1, maxDepth: 0 };
const env = rlmEnvironment({
  runs: engine.runs,
  store: engine.runStore,
  model: () => 'policy:current',
  budgets,
  promptStyle: 'short',
  papersOf,
});
await engine.runs.warm();

/** Mean reward and pass@k (share of questions with a reward > 0 in k samples) on `set`. */
async function evaluate(
  set: readonly EvidenceQuestion[],
  k: number,
): Promise<{ mean: number; pass: number }> {
  const rewards = await Promise.all(
    set.map(async (question) =>
      Promise.all(
        Array.from({ length: k }, async (_, index) => {
          const outcome = await env.rollout(question, { step: 0, index, seed: index });
          return (await env.reward(question, outcome)).reward;
        }),
      ),
    ),
  );
  const flat = rewards.flat();
  return {
    mean: flat.reduce((s, r) => s + r, 0) / flat.length,
    pass: rewards.filter((r) => r.some((x) => x > 0)).length / set.length,
  };
}

console.log(
  `seed ${SEED}; ${train.length} training and ${heldOut.length} held-out questions (${[...heldOutWords].join(', ')})`,
);
const before = await evaluate(heldOut, 16);
console.log(
  `[${elapsed()} s] before SFT: held-out pass@16 ${before.pass.toFixed(3)}, mean reward ${before.mean.toFixed(3)}`,
);

// Teacher traces: the scripted model writes what a good policy would, over the real REPL.
const teacherRuns = [];
for (const question of train) {
  const file = join(dir, `teacher-${question.id}.json`);
  writeFileSync(
    file,
    JSON.stringify({ '0': [`\`\`\`repl\nFINAL_VAR(search(context, "${question.id}"))\n\`\`\``] }),
  );
  const run = await engine.runs.start({
    set: 'toy',
    question: question.question,
    model: `scripted:${file}`,
    budgets,
    promptStyle: 'short',
  });
  await run.finished;
  const events = engine.runStore.events(run.runId);
  const reward = await env.reward(question, { runId: run.runId, events });
  teacherRuns.push({ runId: run.runId, events, spanF1: reward.reward });
}
const selection = selectSftTurns(teacherRuns, policy);
const lengths = selection.turns.map((t) => `${t.prompt.length}+${t.response.length}`);
console.log(`turn lengths (prompt+response tokens): ${lengths.join(' ')}`);
console.log(
  `[${elapsed()} s] teacher traces: ${selection.accepted.length} kept, ${selection.rejected.length} dropped`,
);
await runSftJob({
  policy,
  turns: selection.turns,
  epochs: SFT_EPOCHS,
  batchSize: 4,
  learningRate: 3e-3,
  dir: join(dir, 'sft'),
  onStep: (m) => {
    if (m.step % 10 === 0)
      console.log(`[${elapsed()} s] SFT step ${m.step}: loss ${m.loss.toFixed(4)}`);
  },
});
await sampler.refresh();
const afterSft = await evaluate(heldOut, 16);
const probe = train[0];
const sample = probe ? await env.rollout(probe, { step: 0, index: 0, seed: 0 }) : null;
const said = sample?.events.find((e) => e.kind === 'model.done');
console.log(
  `a rollout on a training question after SFT says: ${JSON.stringify(said?.kind === 'model.done' ? said.text : null)}`,
);
console.log(
  `[${elapsed()} s] after SFT: held-out pass@16 ${afterSft.pass.toFixed(3)}, mean reward ${afterSft.mean.toFixed(3)}`,
);

const curve: number[] = [];
await runGrpoJob({
  policy: samplingFollows(policy, sampler.refresh),
  questions: train,
  ...env,
  config: {
    groupSize: 8,
    batchSize: 4,
    learningRate: 3e-3,
    beta: 0,
    clipLow: 0.2,
    clipHigh: 0.2,
    weighting: 'subtree-mean',
    seed: SEED,
    steps: GRPO_STEPS,
    checkpointEvery: GRPO_STEPS,
  },
  dir: join(dir, 'grpo'),
  onStep: (m) => {
    curve.push(m.rewardMean ?? 0);
    console.log(
      `[${elapsed()} s] GRPO step ${m.step}: train reward ${m.rewardMean?.toFixed(3) ?? '-'}, loss ${m.loss.toFixed(4)}, grad norm ${m.gradNorm.toFixed(3)}`,
    );
  },
});
const afterGrpo = await evaluate(heldOut, 16);
console.log(
  `[${elapsed()} s] after GRPO: held-out pass@16 ${afterGrpo.pass.toFixed(3)}, mean reward ${afterGrpo.mean.toFixed(3)}`,
);

await engine.dispose();
workspace.close();
policy.dispose();
rmSync(dir, { recursive: true, force: true });
console.log(
  JSON.stringify({
    seed: SEED,
    pass_at_16_before_sft: before.pass,
    pass_at_16_after_sft: afterSft.pass,
    heldout_reward_after_sft: Number(afterSft.mean.toFixed(4)),
    heldout_reward_after_grpo: Number(afterGrpo.mean.toFixed(4)),
    grpo_gain_abs: Number((afterGrpo.mean - afterSft.mean).toFixed(4)),
    grpo_steps: GRPO_STEPS,
    train_reward_curve: curve.map((r) => Number(r.toFixed(3))),
    wall_s: Number(elapsed()),
  }),
);
