// Rollouts and rewards of the real task: each rollout an ordinary RLM run through app/rlm (so it is
// stored and opens in the debugger), its children from the same policy; its reward from
// app/evidence (the rubric judge when one is given, else span F1).
import type { Budgets, RunEvent } from '../../app/api/index.ts';
import {
  evidenceReward,
  type EvidencePaper,
  type EvidenceQuestion,
  type RubricJudge,
} from '../../app/evidence/index.ts';
import type { RunService } from '../../app/rlm/index.ts';
import type { RunStore } from '../../app/store/index.ts';
import type { RewardOutcome, RolloutOutcome, RolloutRequest } from './grpo-step.ts';

export interface RlmEnvironmentOptions {
  runs: Pick<RunService, 'start'>;
  store: Pick<RunStore, 'events'>;
  /** The policy's model spec for one rollout (e.g. the local provider with the rollout's seed). */
  model: (request: RolloutRequest) => string;
  budgets?: Partial<Budgets>;
  /** The system prompt's length: the short one fits a small model's context. */
  promptStyle?: 'long' | 'short';
  papersOf: (question: EvidenceQuestion) => EvidencePaper[];
  judge?: RubricJudge | undefined;
}

export function rlmEnvironment(options: RlmEnvironmentOptions) {
  return {
    rollout: async (
      question: EvidenceQuestion,
      request: RolloutRequest,
    ): Promise<RolloutOutcome> => {
      const run = await options.runs.start({
        set: question.set,
        question: question.question,
        model: options.model(request),
        ...(options.budgets ? { budgets: options.budgets } : {}),
        ...(options.promptStyle ? { promptStyle: options.promptStyle } : {}),
        ...(question.paperIds ? { paperIds: question.paperIds } : {}),
      });
      // A failed run is still a rollout: it scores 0 and its turns are trained on that.
      await run.finished.catch(() => undefined);
      return { runId: run.runId, events: options.store.events(run.runId) };
    },
    reward: async (question: EvidenceQuestion, outcome: RolloutOutcome): Promise<RewardOutcome> => {
      const answer = finalAnswer(outcome.events);
      const reward = await evidenceReward(question, answer, options.papersOf(question), {
        judge: options.judge,
      });
      const verdict = reward.verdict;
      return {
        reward: reward.reward,
        precision: verdict?.precision == null ? null : verdict.precision / 10,
        recall: verdict?.recall == null ? null : verdict.recall / 10,
      };
    },
  };
}

/** The root's final answer, or null when the run ended without one. */
export function finalAnswer(events: readonly RunEvent[]): unknown {
  const finished = events.findLast((e) => e.kind === 'run.finished');
  return finished?.kind === 'run.finished' && finished.status === 'done' ? finished.answer : null;
}
