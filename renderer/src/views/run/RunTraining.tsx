// A training rollout's line in the run header (opened from the Train view's GRPO groups with
// `&job=`): the job and step, the root's reward and advantage, the group's mean, std and a
// zero-variance flag, and links comparing it side by side with the group's other rollouts.
import { useMemo } from 'react';
import { Link } from 'react-router';
import type { AgentTraining, RolloutTraining } from '../../../../app/api/index.ts';
import { useApi } from '../../api/ApiContext.tsx';
import { useEngineQuery, type QueryState } from '../papers/use-engine-query.ts';
import { runsHref } from '../runs/runs-route.ts';
import type { TrainingRef } from './route.ts';
import {
  comparePartners,
  formatAdvantage,
  groupLine,
  trainingByAgent,
} from './rollout-training.ts';

export interface RolloutTrainingState {
  query: QueryState<RolloutTraining>;
  /** Each agent's training once loaded, for the cards (one map per record: cards redraw once). */
  byAgent: ReadonlyMap<string, AgentTraining> | null;
}

export function useRolloutTraining(
  runId: string,
  training: TrainingRef | undefined,
): RolloutTrainingState {
  const api = useApi();
  const jobId = training?.jobId;
  const step = training?.step;
  const query = useEngineQuery(
    jobId === undefined ? null : JSON.stringify(['train.rollout', jobId, runId, step ?? null]),
    async () =>
      (
        await api.call('train.rollout', {
          jobId: jobId ?? '',
          runId,
          ...(step !== undefined ? { step } : {}),
        })
      ).rollout,
  );
  const value = query.status === 'ready' ? query.value : null;
  const byAgent = useMemo(() => trainingByAgent(value), [value]);
  return { query, byAgent };
}

export function RunTraining({ query }: { query: QueryState<RolloutTraining> }) {
  if (query.status === 'idle') return null;
  if (query.status === 'loading')
    return <p className="papers-muted run-training">Loading how this rollout was trained…</p>;
  if (query.status === 'failed')
    return (
      <p className="run-failure run-training" role="alert" data-testid="run-training-failure">
        {query.failure.name}: {query.failure.message}
      </p>
    );
  const rollout = query.value;
  const { group } = rollout;
  return (
    <p
      className="papers-muted run-training"
      data-testid="run-training"
      data-reward={rollout.reward}
      data-advantage={rollout.advantage}
      data-zero-variance={group.zeroVariance}
    >
      training step {rollout.step} · {rollout.questionId} · reward {rollout.reward.toFixed(3)} ·
      advantage {formatAdvantage(rollout.advantage)} · {groupLine(rollout)}
      {group.zeroVariance && (
        <span className="state-pill run-failed" data-testid="run-training-zero-variance">
          zero variance: nothing learned
        </span>
      )}
      <span className="run-training-compare">
        compare with:{' '}
        {comparePartners(rollout).map((other) => (
          <Link
            key={other.runId}
            className="papers-link"
            data-testid="run-training-compare"
            to={runsHref({ compare: [rollout.runId, other.runId] })}
            title={`${other.runId}: reward ${other.reward.toFixed(3)}`}
          >
            {other.reward.toFixed(2)}
          </Link>
        ))}
      </span>
    </p>
  );
}
