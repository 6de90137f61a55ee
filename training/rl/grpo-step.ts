// One GRPO step (RLM-SPEC section 5): G rollouts per question, rewards, advantages inherited down
// each rollout's agent tree, the clipped PPO + KL loss over every agent turn, one optimizer step.
// One update per batch, so pi_old is the current policy and its log-probs are the detached logp.
import type { RunEvent, StepMetrics, TrainConfig } from '../../app/api/index.ts';
import { weightedSamples, type Rollout, type WeightedSample } from './advantages.ts';
import type { TokenizedTurn, TrainablePolicy } from './policy.ts';
import { ppoLoss } from './ppo-loss.ts';
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

type StepFigures = Omit<StepMetrics, 'step' | 'at' | 'elapsedMs' | 'phase'>;

export async function grpoStep<Q extends { id: string }>(
  deps: GrpoDeps<Q>,
  batch: readonly Q[],
  step: number,
): Promise<StepFigures> {
  const { config, policy } = deps;
  const now = deps.now ?? Date.now;
  const started = now();
  const outcomes = await rolloutGroups(deps, batch, step);
  const { turns, groups } = tokenizeGroups(policy, outcomes);
  const samples = weightedSamples(groups, { weighting: config.weighting, seed: step });
  // With no KL term a zero advantage contributes nothing: skip those turns' passes.
  const trained = config.beta > 0 ? samples : samples.filter((s) => s.advantage !== 0);
  const { tokens, ...loss } = await accumulate(deps, trained, turns);
  // A step whose groups all scored alike (and no KL term) has nothing to learn from.
  const { gradNorm } =
    trained.length === 0
      ? { gradNorm: 0 }
      : await policy.step({
          learningRate: config.learningRate,
          maxGradNorm: deps.maxGradNorm ?? 1,
        });
  const flat = outcomes.flat();
  const rewards = flat.map((o) => o.reward.reward);
  const advantages = groups.map((_, q) => samplesAdvantages(samples, q, config.groupSize));
  const elapsed = Math.max(now() - started, 1);
  return {
    ...loss,
    gradNorm,
    tokensPerSecond: (tokens / elapsed) * 1000,
    rewardMean: mean(rewards),
    rewardMin: Math.min(...rewards),
    rewardMax: Math.max(...rewards),
    precisionMean: meanOrNull(flat.map((o) => o.reward.precision)),
    recallMean: meanOrNull(flat.map((o) => o.reward.recall)),
    turnsPerRollout: mean(flat.map((o) => stepSamples(o.outcome.events).length)),
    childrenPerRollout: mean(
      flat.map((o) => o.outcome.events.filter((e) => e.kind === 'agent.spawned').length - 1),
    ),
    groups: batch.map((question, q) => ({
      questionId: question.id,
      rollouts: (outcomes[q] ?? []).map(({ outcome, reward }, r) => ({
        runId: outcome.runId,
        reward: reward.reward,
        advantage: advantages[q]?.[r] ?? 0,
      })),
    })),
  };
}

interface ScoredRollout {
  outcome: RolloutOutcome;
  reward: RewardOutcome;
}

/** G rollouts of every question at once, each rewarded as it ends. */
function rolloutGroups<Q extends { id: string }>(
  deps: GrpoDeps<Q>,
  batch: readonly Q[],
  step: number,
): Promise<ScoredRollout[][]> {
  const { config } = deps;
  return Promise.all(
    batch.map((question, q) =>
      Promise.all(
        Array.from({ length: config.groupSize }, async (_, index) => {
          const seed = mixSeed(config.seed, step, q, index);
          const outcome = await deps.rollout(question, { step, index, seed });
          return { outcome, reward: await deps.reward(question, outcome) };
        }),
      ),
    ),
  );
}

/** Each turn as token ids (keyed by question, rollout, agent and turn) and each rollout's tree. */
function tokenizeGroups(
  policy: TrainablePolicy,
  outcomes: ScoredRollout[][],
): { turns: Map<string, TokenizedTurn>; groups: Rollout[][] } {
  const turns = new Map<string, TokenizedTurn>();
  const groups: Rollout[][] = outcomes.map((group, q) =>
    group.map(({ outcome, reward }, r) => {
      for (const sample of stepSamples(outcome.events)) {
        turns.set(
          turnKey(q, r, sample.agentId, sample.turn),
          policy.encodeTurn(sample.messages, sample.response, sample.ended),
        );
      }
      const root = rolloutTree(
        outcome.events,
        (s) => turns.get(turnKey(q, r, s.agentId, s.turn))?.response.length ?? 0,
      );
      return { root, reward: reward.reward };
    }),
  );
  return { turns, groups };
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

/** The root advantage of each of question q's rollouts (0 for a rollout with no trained turn). */
function samplesAdvantages(samples: readonly WeightedSample[], q: number, g: number): number[] {
  const out = new Array<number>(g).fill(0);
  for (const s of samples) if (s.question === q) out[s.rollout] = s.advantage;
  return out;
}

function turnKey(q: number, r: number, agentId: string, turn: number): string {
  return `${q}/${r}/${agentId}#${turn}`;
}

function mean(values: readonly number[]): number {
  return values.length === 0 ? 0 : values.reduce((s, v) => s + v, 0) / values.length;
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
