// A step's GRPO groups: each rollout's reward and advantage, the group's mean, std and a
// zero-variance flag, a link opening the rollout in the debugger with its training shown on the
// cards (`&job=&step=`), and one setting it side by side with the group's best (or worst) run.
import type { StepMetrics } from '../../../../app/api/index.ts';
import { runHref } from '../run/route.ts';
import { runsHref } from '../runs/runs-route.ts';
import { comparePartner, groupSummary } from './groups.ts';
import type { ChartJob } from './TrainChart.tsx';

export function GroupsTable({ job, step }: { job: ChartJob; step: number | null }) {
  const metrics = step === null ? job.metrics.at(-1) : job.metrics.find((m) => m.step === step);
  if (!metrics || metrics.groups.length === 0) return null;
  return (
    <section className="train-groups" data-testid="train-groups" data-step={metrics.step}>
      <h3>Step {metrics.step}: GRPO groups</h3>
      {metrics.groups.map((group) => (
        <GroupTable key={group.questionId} jobId={job.id} step={metrics.step} group={group} />
      ))}
    </section>
  );
}

function GroupTable({
  jobId,
  step,
  group,
}: {
  jobId: string;
  step: number;
  group: StepMetrics['groups'][number];
}) {
  const summary = groupSummary(group.rollouts.map((r) => r.reward));
  return (
    <table data-testid="train-group" data-zero-variance={summary.zeroVariance}>
      <caption>
        {group.questionId} · mean {summary.mean.toFixed(3)} · std {summary.std.toFixed(3)}
        {summary.zeroVariance && (
          <span className="train-zero-variance" data-testid="train-group-zero-variance">
            {' '}
            · zero variance: nothing learned
          </span>
        )}
      </caption>
      <thead>
        <tr>
          <th>rollout</th>
          <th>reward</th>
          <th>advantage</th>
          <th>side by side</th>
        </tr>
      </thead>
      <tbody>
        {group.rollouts.map((rollout) => {
          const partner = comparePartner(group.rollouts, rollout.runId);
          return (
            <tr key={rollout.runId}>
              <td>
                <a
                  href={`#${runHref({ runId: rollout.runId, training: { jobId, step } })}`}
                  data-testid="train-rollout-link"
                >
                  {rollout.runId}
                </a>
              </td>
              <td>{rollout.reward.toFixed(3)}</td>
              <td className={rollout.advantage >= 0 ? 'train-positive' : 'train-negative'}>
                {rollout.advantage.toFixed(3)}
              </td>
              <td>
                {partner && (
                  <a
                    href={`#${runsHref({ compare: [rollout.runId, partner] })}`}
                    data-testid="train-compare-link"
                  >
                    compare
                  </a>
                )}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
