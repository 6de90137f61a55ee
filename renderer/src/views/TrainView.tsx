// Train: configure and launch a local RL fine-tuning job (it runs in a process of its own), watch its
// charts fill in live, pause and resume it, overlay a second job, and open each step's GRPO groups
// in the debugger; or export the same job for a Ray cluster, submit it and follow it there. Where the
// view stands is in the URL (?job=&compare=&step=).
import { useCallback, useState } from 'react';
import { useSearchParams } from 'react-router';
import type { TrainJob } from '../../../app/api/index.ts';
import { useApi } from '../api/ApiContext.tsx';
import { useEngineQuery } from './papers/use-engine-query.ts';
import { ClusterPanel } from './train/ClusterPanel.tsx';
import type { JobConfigResult } from './train/job-config.ts';
import { JobForm } from './train/JobForm.tsx';
import { charts, type XAxis } from './train/series.ts';
import { TrainChart, type ChartJob } from './train/TrainChart.tsx';
import { useTrainJob } from './train/useTrainJob.ts';
import '../styles/papers.css';
import '../styles/train.css';

function GroupsTable({ job, step }: { job: ChartJob; step: number | null }) {
  const metrics = step === null ? job.metrics.at(-1) : job.metrics.find((m) => m.step === step);
  if (!metrics || metrics.groups.length === 0) return null;
  return (
    <section className="train-groups" data-testid="train-groups" data-step={metrics.step}>
      <h3>Step {metrics.step}: GRPO groups</h3>
      {metrics.groups.map((group) => (
        <table key={group.questionId}>
          <caption>{group.questionId}</caption>
          <thead>
            <tr>
              <th>rollout</th>
              <th>reward</th>
              <th>advantage</th>
            </tr>
          </thead>
          <tbody>
            {group.rollouts.map((rollout) => (
              <tr key={rollout.runId}>
                <td>
                  <a href={`#/run?run=${encodeURIComponent(rollout.runId)}`}>{rollout.runId}</a>
                </td>
                <td>{rollout.reward.toFixed(3)}</td>
                <td className={rollout.advantage >= 0 ? 'train-positive' : 'train-negative'}>
                  {rollout.advantage.toFixed(3)}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ))}
    </section>
  );
}

export function TrainView() {
  const api = useApi();
  const [params, setParams] = useSearchParams();
  const jobId = params.get('job');
  const compareId = params.get('compare');
  const pickedStep = params.get('step');
  const [axis, setAxis] = useState<XAxis>('step');
  const [strength, setStrength] = useState(0.6);
  const [configured, setConfigured] = useState<JobConfigResult | null>(null);
  // The list stays up while it reloads (a job changes on every step it trains).
  const jobs = useEngineQuery('train-jobs', () => api.call('train.jobs', {}), {
    refreshOn: 'train.jobChanged',
  });
  const primary = useTrainJob(jobId);
  const compare = useTrainJob(compareId);
  const go = (next: Record<string, string | null>) => {
    const merged = new URLSearchParams(params);
    for (const [key, value] of Object.entries(next)) {
      if (value === null) merged.delete(key);
      else merged.set(key, value);
    }
    setParams(merged);
  };
  const pick = useCallback(
    (_: string, step: number) => {
      setParams((current) => {
        const merged = new URLSearchParams(current);
        merged.set('step', String(step));
        return merged;
      });
    },
    [setParams],
  );
  const list: TrainJob[] = jobs.status === 'ready' ? jobs.value.jobs : [];
  const chartJobs: ChartJob[] = [];
  if (primary.job)
    chartJobs.push({ id: primary.job.id, name: primary.job.name, metrics: primary.metrics });
  if (compare.job && compare.job.id !== primary.job?.id) {
    chartJobs.push({ id: compare.job.id, name: compare.job.name, metrics: compare.metrics });
  }
  const job = primary.job;

  return (
    <section
      className="view train-view"
      data-testid="view-train"
      aria-labelledby="view-train-title"
    >
      <h1 id="view-train-title">Train</h1>
      <JobForm
        onStarted={(started) => {
          go({ job: started.id, step: null });
        }}
        onConfig={setConfigured}
      />
      <ClusterPanel job={configured} />
      <ul className="train-jobs" data-testid="train-jobs">
        {list.map((item) => (
          <li key={item.id}>
            <button
              className="button"
              type="button"
              aria-pressed={item.id === jobId}
              onClick={() => {
                go({ job: item.id, step: null });
              }}
              data-testid="train-job"
              data-status={item.status}
            >
              {item.name} · {item.status} · {item.step}/{item.config.steps}
            </button>
          </li>
        ))}
      </ul>
      {primary.failure && (
        <p className="papers-failure" role="alert">
          {primary.failure.name}: {primary.failure.message}
        </p>
      )}
      {job && (
        <section className="train-job-panel" data-testid="train-job-panel" data-status={job.status}>
          <header>
            <h2>
              {job.name} · {job.config.baseModel}
            </h2>
            <span data-testid="train-job-progress">
              step {primary.metrics.at(-1)?.step ?? 0}/{job.config.steps} · {job.status}
            </span>
            {job.status === 'running' ? (
              <button
                className="button"
                type="button"
                onClick={() => void api.call('train.stop', { jobId: job.id })}
                data-testid="train-stop"
              >
                Pause
              </button>
            ) : job.status !== 'done' ? (
              <button
                className="button"
                type="button"
                onClick={() => void api.call('train.resume', { jobId: job.id })}
                data-testid="train-resume"
              >
                Resume
              </button>
            ) : null}
            {job.error && (
              <p className="papers-failure" role="alert" data-testid="train-job-error">
                {job.error.name}: {job.error.message}
              </p>
            )}
          </header>
          <div className="train-controls">
            <label>
              smoothing
              <input
                type="range"
                min="0"
                max="0.99"
                step="0.01"
                value={strength}
                onChange={(e) => {
                  setStrength(Number(e.target.value));
                }}
                data-testid="train-smoothing"
              />
              <output>{strength.toFixed(2)}</output>
            </label>
            <label>
              x axis
              <select
                value={axis}
                onChange={(e) => {
                  setAxis(e.target.value as XAxis);
                }}
                data-testid="train-axis"
              >
                <option value="step">step</option>
                <option value="relative">time since start</option>
                <option value="wall">wall time</option>
              </select>
            </label>
            <label>
              compare with
              <select
                value={compareId ?? ''}
                onChange={(e) => {
                  go({ compare: e.target.value === '' ? null : e.target.value });
                }}
                data-testid="train-compare"
              >
                <option value="">none</option>
                {list
                  .filter((other) => other.id !== job.id)
                  .map((other) => (
                    <option key={other.id} value={other.id}>
                      {other.name}
                    </option>
                  ))}
              </select>
            </label>
          </div>
          <div className="train-charts">
            {charts.map((spec) => (
              <TrainChart
                key={spec.id}
                spec={spec}
                jobs={chartJobs}
                axis={axis}
                strength={strength}
                onPickStep={pick}
              />
            ))}
          </div>
          {chartJobs[0] && (
            <GroupsTable
              job={chartJobs[0]}
              step={pickedStep === null ? null : Number(pickedStep)}
            />
          )}
        </section>
      )}
    </section>
  );
}
