// Cold-start SFT (RLM-SPEC section 5): teacher runs filtered (finished, no REPL error, span F1 > 0),
// every agent turn a step-wise example, loss on the response tokens only, a few epochs.
import type { RunEvent, StepMetrics } from '../../app/api/index.ts';
import { JobFiles } from './job-files.ts';
import type { TokenizedTurn, TrainablePolicy } from './policy.ts';
import { nllLoss } from './ppo-loss.ts';
import { sftRejection, stepSamples } from './trajectory.ts';
import { mixSeed } from './grpo-step.ts';
import { TrainingInputError } from './trainer.ts';

export interface TeacherRun {
  runId: string;
  events: readonly RunEvent[];
  spanF1: number;
}

export interface SftSelection {
  turns: TokenizedTurn[];
  accepted: string[];
  rejected: { runId: string; reason: string }[];
}

/** The step-wise examples of the teacher runs that pass the filter, and why the others did not. */
export function selectSftTurns(
  runs: readonly TeacherRun[],
  policy: Pick<TrainablePolicy, 'encodeTurn'>,
): SftSelection {
  const selection: SftSelection = { turns: [], accepted: [], rejected: [] };
  for (const run of runs) {
    const reason = sftRejection(run.events, run.spanF1);
    if (reason !== null) {
      selection.rejected.push({ runId: run.runId, reason });
      continue;
    }
    selection.accepted.push(run.runId);
    for (const sample of stepSamples(run.events)) {
      selection.turns.push(policy.encodeTurn(sample.messages, sample.response, sample.ended));
    }
  }
  return selection;
}

export interface SftJobOptions {
  policy: TrainablePolicy;
  turns: readonly TokenizedTurn[];
  epochs: number;
  batchSize: number;
  learningRate: number;
  maxGradNorm?: number;
  /** The SFT phase's own folder (GRPO starts from its checkpoint, in a folder of its own). */
  dir: string;
  now?: () => number;
  onStep?: (metrics: StepMetrics) => void;
  /**
   * Aborting stops before the next step, with no checkpoint: a job started again runs SFT from
   * its start (it is the short phase).
   */
  signal?: AbortSignal | undefined;
  /** Also log each step here (the job's own metrics, so SFT shows beside GRPO). */
  alsoLogTo?: JobFiles | undefined;
  /** Each epoch visits the turns in an order drawn from this seed and the epoch; absent, in order. */
  seed?: number | undefined;
  /** Go on after this step (the policy holds its checkpoint): a paused phase resumed. */
  resumeAfter?: number | undefined;
  /** Also checkpoint every this many steps, so a killed phase loses at most that many. */
  checkpointEvery?: number | undefined;
}

/** Optimizer steps an SFT phase takes: every epoch's batches. */
export function sftStepCount(turns: number, epochs: number, batchSize: number): number {
  return epochs * Math.ceil(turns / batchSize);
}

/** A seeded permutation of 0..n-1 (Fisher-Yates over xorshift32). */
export function shuffled(n: number, seed: number): number[] {
  const order = Array.from({ length: n }, (_, i) => i);
  let state = seed >>> 0 || 1;
  for (let i = n - 1; i > 0; i--) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    const j = state % (i + 1);
    [order[i], order[j]] = [order[j] ?? 0, order[i] ?? 0];
  }
  return order;
}

/** An SFT step's metrics line: its own figures, and none of GRPO's. */
export function sftStepLine(
  figures: Pick<
    StepMetrics,
    'step' | 'at' | 'elapsedMs' | 'loss' | 'gradNorm' | 'tokensPerSecond' | 'entropy'
  >,
): StepMetrics {
  return {
    ...figures,
    phase: 'sft',
    rewardMean: null,
    rewardMin: null,
    rewardMax: null,
    precisionMean: null,
    recallMean: null,
    kl: null,
    clipFraction: null,
    turnsPerRollout: null,
    childrenPerRollout: null,
    groups: [],
  };
}

/**
 * Plain SFT: each batch of turns one optimizer step; a checkpoint at the end (then the folder is
 * marked done) and where it is stopped, so a paused phase goes on from there.
 */
export async function runSftJob(options: SftJobOptions): Promise<StepMetrics[]> {
  const { policy, turns } = options;
  if (turns.length === 0) {
    throw new TrainingInputError(
      'no SFT examples: every teacher run was filtered out (REPL errors or span F1 of 0)',
    );
  }
  const now = options.now ?? Date.now;
  const files = new JobFiles(options.dir);
  const metrics: StepMetrics[] = [];
  const resumeAfter = options.resumeAfter ?? 0;
  // A resumed phase's clock goes on from its last logged step, as GRPO's does.
  const elapsedBefore =
    resumeAfter === 0
      ? 0
      : ((await files.readMetrics()).findLast((m) => m.phase === 'sft' && m.step <= resumeAfter)
          ?.elapsedMs ?? 0);
  const began = now();
  let step = 0;
  let saved = resumeAfter;
  const checkpoint = async () => {
    if (saved === step) return;
    await policy.saveCheckpoint(files.checkpointDir(step));
    await files.commitCheckpoint(step);
    saved = step;
  };
  for (let epoch = 0; epoch < options.epochs; epoch++) {
    const seed = options.seed;
    const order =
      seed === undefined
        ? turns
        : shuffled(turns.length, mixSeed(seed, epoch)).flatMap((i) => {
            const turn = turns[i];
            return turn ? [turn] : [];
          });
    for (let start = 0; start < turns.length; start += options.batchSize) {
      if (options.signal?.aborted) {
        await checkpoint();
        return metrics;
      }
      step++;
      if (step <= resumeAfter) continue;
      const stepStarted = now();
      const batch = order.slice(start, start + options.batchSize);
      const scored = await policy.score(batch, { reference: false, grad: true });
      const { loss, gradLogp } = nllLoss(scored.logp);
      await scored.backward(gradLogp);
      const { gradNorm } = await policy.step({
        learningRate: options.learningRate,
        maxGradNorm: options.maxGradNorm ?? 1,
      });
      const tokens = batch.reduce((n, t) => n + t.response.length, 0);
      const at = now();
      const line = sftStepLine({
        step,
        at,
        elapsedMs: elapsedBefore + (at - began),
        loss,
        gradNorm,
        tokensPerSecond: (tokens / Math.max(at - stepStarted, 1)) * 1000,
        entropy: Number.isNaN(scored.entropy) ? null : scored.entropy,
      });
      await files.appendMetrics(line);
      await options.alsoLogTo?.appendMetrics(line);
      metrics.push(line);
      options.onStep?.(line);
      const every = options.checkpointEvery;
      if (every && step % every === 0) await checkpoint();
    }
  }
  await checkpoint();
  await files.markDone(step);
  return metrics;
}
