// One GRPO step (RLM-SPEC section 5): G rollouts per question, rewards, advantages inherited down
// each rollout's agent tree, the clipped PPO + KL loss over every agent turn, one optimizer step.
// One update per batch, so pi_old is the current policy and its log-probs are the detached logp.
import type { RolloutTraining, RunEvent, StepMetrics, TrainConfig } from '../../app/api/index.ts';
import { weightedSamples, type Rollout, type WeightedSample } from './advantages.ts';
import type { TokenizedTurn, TrainablePolicy } from './policy.ts';
import { ppoLoss } from './ppo-loss.ts';
import { rolloutTrainings } from './rollout-training.ts';
import {
  mean,
  responseLengths,
  rewardSpread,
  tokenShares,
  type SampledTurn,
} from './step-figures.ts';
import { rolloutTree, stepSamples } from './trajectory.ts';

export interface RolloutOutcome {
  runId: string;
  events: RunEvent[];
}

export interface RewardOutcome {
  reward: number;
  precision?: number | null | undefined;
  recall?: number | null | undefined;
}

export interface RolloutRequest {
  step: number;
  /** Which of the question's G rollouts this is. */
  index: number;
  /** Sampling seed, a function of the job seed, step, question and index: resumes repeat it. */
  seed: number;
  /** A validation rollout: sampled to measure the policy, never trained on. */
  validation?: boolean;
}

export interface GrpoDeps<Q extends { id: string }> {
  policy: TrainablePolicy;
  rollout(question: Q, request: RolloutRequest): Promise<RolloutOutcome>;
  reward(question: Q, outcome: RolloutOutcome): Promise<RewardOutcome>;
  config: Pick<
    TrainConfig,
    | 'groupSize'
    | 'learningRate'
    | 'beta'
    | 'clipLow'
    | 'clipHigh'
    | 'weighting'
    | 'seed'
    | 'temperature'
  >;
  maxGradNorm?: number;
  /** Turns scored per forward/backward pass (gradient accumulation across passes). */
  microBatch?: number;
  now?: () => number;
}

export type StepFigures = Omit<StepMetrics, 'step' | 'at' | 'elapsedMs' | 'phase'>;

export interface StepResult {
  figures: StepFigures;
  /** How each rollout was trained (the job's rollouts/step-N.jsonl). */
  rollouts: RolloutTraining[];
}

/** Phases run one after another (as verl times them), so each one's wall time is its own. */
export async function grpoStep<Q extends { id: string }>(
  deps: GrpoDeps<Q>,
  batch: readonly Q[],
  step: number,
): Promise<StepResult> {
  const { config, policy } = deps;
  const clock = phaseClock(deps.now ?? Date.now);
  const outcomes = await rolloutGroups(deps, batch, step);
  const rolloutSeconds = clock.lap();
  const scored = await rewardGroups(deps, batch, outcomes);
  const rewardSeconds = clock.lap();
  const { turns, groups, sampled } = tokenizeGroups(policy, scored);
  const samples = weightedSamples(groups, { weighting: config.weighting, seed: step });
  // With no KL term a zero advantage contributes nothing: skip those turns' passes.
  const trained = config.beta > 0 ? samples : samples.filter((s) => s.advantage !== 0);
  const { tokens, ...loss } = await accumulate(deps, trained, turns);
  const backwardSeconds = clock.lap();
  // A step whose groups all scored alike (and no KL term) has nothing to learn from.
  const { gradNorm } =
    trained.length === 0
      ? { gradNorm: 0 }
      : await policy.step({
          learningRate: config.learningRate,
          maxGradNorm: deps.maxGradNorm ?? 1,
        });
  const optimizerSeconds = clock.lap();
  const rollouts = rolloutTrainings({
    step,
    questionIds: batch.map((q) => q.id),
    groups,
    runIds: scored.map((group) => group.map((o) => o.outcome.runId)),
    samples,
    trained,
  });
  return {
    figures: {
      ...loss,
      ...rolloutFigures(scored, groups, sampled, trained),
      gradNorm,
      tokensPerSecond: tokens / Math.max(clock.total(), 0.001),
      rolloutSeconds,
      rewardSeconds,
      backwardSeconds,
      optimizerSeconds,
      groups: groupsOf(rollouts),
    },
    rollouts,
  };
}

/** Seconds since the last lap (or the start), and since the start. */
function phaseClock(now: () => number) {
  const started = now();
  let last = started;
  return {
    lap(): number {
      const at = now();
      const seconds = (at - last) / 1000;
      last = at;
      return seconds;
    },
    total: () => (now() - started) / 1000,
  };
}

/** What the step's rollouts looked like: rewards and their spread, lengths, shapes, token shares. */
function rolloutFigures(
  scored: readonly ScoredRollout[][],
  groups: readonly Rollout[][],
  sampled: readonly SampledTurn[],
  trained: readonly WeightedSample[],
) {
  const flat = scored.flat();
  const rewards = flat.map((o) => o.reward.reward);
  return {
    rewardMean: mean(rewards),
    rewardMin: Math.min(...rewards),
    rewardMax: Math.max(...rewards),
    ...rewardSpread(groups.map((group) => group.map((r) => r.reward))),
    precisionMean: meanOrNull(flat.map((o) => o.reward.precision)),
    recallMean: meanOrNull(flat.map((o) => o.reward.recall)),
    turnsPerRollout: mean(flat.map((o) => stepSamples(o.outcome.events).length)),
    childrenPerRollout: mean(
      flat.map((o) => o.outcome.events.filter((e) => e.kind === 'agent.spawned').length - 1),
    ),
    ...responseLengths(sampled),
    ...tokenShares(trained, (q, r) => groups[q]?.[r]?.root.agentId ?? '0'),
  };
}

/** The metrics line's groups: each rollout's run, reward and advantage. */
function groupsOf(rollouts: readonly RolloutTraining[]): StepMetrics['groups'] {
  const groups = new Map<string, StepMetrics['groups'][number]>();
  for (const rollout of rollouts) {
    let group = groups.get(rollout.questionId);
    if (!group) {
      group = { questionId: rollout.questionId, rollouts: [] };
      groups.set(rollout.questionId, group);
    }
    group.rollouts.push({
      runId: rollout.runId,
      reward: rollout.reward,
      advantage: rollout.advantage,
    });
  }
  return [...groups.values()];
}

interface ScoredRollout {
  outcome: RolloutOutcome;
  reward: RewardOutcome;
}

/** G rollouts of every question at once. */
function rolloutGroups<Q extends { id: string }>(
  deps: GrpoDeps<Q>,
  batch: readonly Q[],
  step: number,
): Promise<RolloutOutcome[][]> {
  const { config } = deps;
  return Promise.all(
    batch.map((question, q) =>
      Promise.all(
        Array.from({ length: config.groupSize }, (_, index) => {
          const seed = mixSeed(config.seed, step, q, index);
          return deps.rollout(question, { step, index, seed });
        }),
      ),
    ),
  );
}

/** Every rollout's reward, all at once (a judge's calls overlap). */
function rewardGroups<Q extends { id: string }>(
  deps: GrpoDeps<Q>,
  batch: readonly Q[],
  outcomes: readonly RolloutOutcome[][],
): Promise<ScoredRollout[][]> {
  return Promise.all(
    outcomes.map((group, q) => {
      const question = batch[q];
      if (!question) throw new Error(`no question ${q} in the batch`);
      return Promise.all(
        group.map(async (outcome) => ({ outcome, reward: await deps.reward(question, outcome) })),
      );
    }),
  );
}

/** Each turn as token ids (keyed by question, rollout, agent and turn) and each rollout's tree. */
function tokenizeGroups(
  policy: TrainablePolicy,
  outcomes: ScoredRollout[][],
): { turns: Map<string, TokenizedTurn>; groups: Rollout[][]; sampled: SampledTurn[] } {
  const turns = new Map<string, TokenizedTurn>();
  const sampled: SampledTurn[] = [];
  const groups: Rollout[][] = outcomes.map((group, q) =>
    group.map(({ outcome, reward }, r) => {
      for (const sample of stepSamples(outcome.events)) {
        const turn = policy.encodeTurn(sample.messages, sample.response, sample.ended);
        turns.set(turnKey(q, r, sample.agentId, sample.turn), turn);
        sampled.push({ tokens: turn.response.length, ended: sample.ended });
      }
      const root = rolloutTree(
        outcome.events,
        (s) => turns.get(turnKey(q, r, s.agentId, s.turn))?.response.length ?? 0,
      );
      return { root, reward: reward.reward };
    }),
  );
  return { turns, groups, sampled };
}

async function accumulate(
  deps: GrpoDeps<{ id: string }>,
  samples: readonly WeightedSample[],
  turns: ReadonlyMap<string, TokenizedTurn>,
): Promise<{
  loss: number;
  kl: number;
  clipFraction: number;
  entropy: number | null;
  tokens: number;
}> {
  const { config, policy } = deps;
  const size = deps.microBatch ?? 16;
  let loss = 0;
  let kl = 0;
  let clipped = 0;
  let entropySum = 0;
  let tokens = 0;
  for (let start = 0; start < samples.length; start += size) {
    const chunk = samples.slice(start, start + size);
    const chunkTurns = chunk.map((s) => {
      const turn = turns.get(turnKey(s.question, s.rollout, s.agentId, s.turn));
      if (!turn) throw new Error(`no tokens for agent ${s.agentId} turn ${s.turn}`);
      return turn;
    });
    // Scored at the rollouts' temperature: the gradient is of the policy that sampled them.
    const { temperature } = config;
    const reference =
      config.beta > 0
        ? await policy.score(chunkTurns, { reference: true, grad: false, temperature })
        : null;
    const current = await policy.score(chunkTurns, { reference: false, grad: true, temperature });
    const result = ppoLoss(
      chunk.map((s, i) => {
        const logp = current.logp[i] ?? new Float64Array();
        return {
          advantage: s.advantage,
          tokenWeight: s.tokenWeight,
          logp,
          oldLogp: logp,
          refLogp: reference?.logp[i] ?? logp,
        };
      }),
      { clipLow: config.clipLow, clipHigh: config.clipHigh, beta: config.beta },
    );
    await current.backward(result.gradLogp);
    const chunkTokens = chunkTurns.reduce((n, t) => n + t.response.length, 0);
    loss += result.loss;
    kl += result.kl;
    clipped += result.clipFraction * chunkTokens;
    if (!Number.isNaN(current.entropy)) entropySum += current.entropy * chunkTokens;
    tokens += chunkTokens;
  }
  return {
    loss,
    kl,
    clipFraction: tokens === 0 ? 0 : clipped / tokens,
    entropy: tokens === 0 ? null : entropySum / tokens,
    tokens,
  };
}

function turnKey(q: number, r: number, agentId: string, turn: number): string {
  return `${q}/${r}/${agentId}#${turn}`;
}

function meanOrNull(values: readonly (number | null | undefined)[]): number | null {
  const known = values.filter((v): v is number => typeof v === 'number');
  return known.length === 0 ? null : mean(known);
}

/** A 32-bit seed from the job seed and a rollout's coordinates (splitmix-style mixing). */
export function mixSeed(...parts: number[]): number {
  let h = 0x9e3779b9;
  for (const part of parts) {
    h = Math.imul(h ^ (part >>> 0), 0x85ebca6b);
    h ^= h >>> 13;
    h = Math.imul(h, 0xc2b2ae35);
    h ^= h >>> 16;
  }
  return h >>> 0;
}
