// Train: configure and launch a local RL fine-tuning job (it runs in a process of its own), watch its
// charts fill in live, pause and resume it, overlay a second job, and open each step's GRPO groups
// in the debugger; or export the same job for a Ray cluster, submit it and follow it there. Where the
// view stands is in the URL (?job=&compare=&step=).
import { useCallback, useState } from 'react';
import type { StepMetrics, TrainJob } from '../../../app/api/index.ts';
import { useApi } from '../api/ApiContext.tsx';
import { Choice } from './fields.tsx';
import { useEngineQuery } from './papers/use-engine-query.ts';
import { useUrlParams } from './use-url-params.ts';
import { ClusterPanel } from './train/ClusterPanel.tsx';
import { GroupsTable } from './train/GroupsTable.tsx';
import type { JobConfigResult } from './train/job-config.ts';
import { JobForm } from './train/JobForm.tsx';
import { MetricsExport } from './train/MetricsExport.tsx';
import { charts, type XAxis } from './train/series.ts';
import { TrainChart, type ChartJob } from './train/TrainChart.tsx';
import { useTrainJob, type TrainJobState } from './train/useTrainJob.ts';
import '../styles/papers.css';
import '../styles/train.css';

const axisChoices: readonly { value: XAxis; label: string }[] = [
  { value: 'step', label: 'step' },
  { value: 'relative', label: 'time since start' },
  { value: 'wall', label: 'wall time' },
];

// Where the view stands lives in the URL: `go` sets or clears some keys, `pick` the picked step.
function useTrainParams() {
  const { params, setParams, go } = useUrlParams();
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
  const step = params.get('step');
  return {
    jobId: params.get('job'),
    compareId: params.get('compare'),
    pickedStep: step === null ? null : Number(step),
    go,
    pick,
  };
}

// The compared job is drawn second, unless it is the primary one.
function chartJobsOf(primary: TrainJobState, compare: TrainJobState): ChartJob[] {
  const chartJobs: ChartJob[] = [];
  if (primary.job)
    chartJobs.push({ id: primary.job.id, name: primary.job.name, metrics: primary.metrics });
  if (compare.job && compare.job.id !== primary.job?.id) {
    chartJobs.push({ id: compare.job.id, name: compare.job.name, metrics: compare.metrics });
  }
  return chartJobs;
}

function useTrainJobs(jobId: string | null, compareId: string | null) {
  const api = useApi();
  // The list stays up while it reloads (a job changes on every step it trains).
  const jobs = useEngineQuery('train-jobs', () => api.call('train.jobs', {}), {
    refreshOn: 'train.jobChanged',
  });
  const primary = useTrainJob(jobId);
  const compare = useTrainJob(compareId);
  const list: TrainJob[] = jobs.status === 'ready' ? jobs.value.jobs : [];
  return { list, primary, chartJobs: chartJobsOf(primary, compare) };
}

export function TrainView() {
  const { jobId, compareId, pickedStep, go, pick } = useTrainParams();
  const [axis, setAxis] = useState<XAxis>('step');
  const [strength, setStrength] = useState(0.6);
  const [configured, setConfigured] = useState<JobConfigResult | null>(null);
  const { list, primary, chartJobs } = useTrainJobs(jobId, compareId);
  const job = primary.job;
  const openJob = (id: string) => {
    go({ job: id, step: null });
  };

  return (
    <section
      className="view train-view"
      data-testid="view-train"
      aria-labelledby="view-train-title"
    >
      <h1 id="view-train-title">Train</h1>
      <JobForm
        onStarted={(started) => {
          openJob(started.id);
        }}
        onConfig={setConfigured}
      />
      <ClusterPanel job={configured} />
      <JobList list={list} jobId={jobId} onOpen={openJob} />
      {primary.failure && (
        <p className="papers-failure" role="alert">
          {primary.failure.name}: {primary.failure.message}
        </p>
      )}
      {job && (
        <section className="train-job-panel" data-testid="train-job-panel" data-status={job.status}>
          <JobHeader job={job} metrics={primary.metrics} />
          <ChartControls
            strength={strength}
            onStrength={setStrength}
            axis={axis}
            onAxis={setAxis}
            compareId={compareId}
            others={list.filter((other) => other.id !== job.id)}
            onCompare={(id) => {
              go({ compare: id });
            }}
          />
          <JobCharts
            jobs={chartJobs}
            axis={axis}
            strength={strength}
            onPickStep={pick}
            pickedStep={pickedStep}
          />
        </section>
      )}
    </section>
  );
}

function JobCharts({
  jobs,
  axis,
  strength,
  onPickStep,
  pickedStep,
}: {
  jobs: readonly ChartJob[];
  axis: XAxis;
  strength: number;
  onPickStep: (jobId: string, step: number) => void;
  pickedStep: number | null;
}) {
  return (
    <>
      <div className="train-charts">
        {charts.map((spec) => (
          <TrainChart
            key={spec.id}
            spec={spec}
            jobs={jobs}
            axis={axis}
            strength={strength}
            onPickStep={onPickStep}
          />
        ))}
      </div>
      {jobs[0] && <GroupsTable job={jobs[0]} step={pickedStep} />}
    </>
  );
}

function JobList({
  list,
  jobId,
  onOpen,
}: {
  list: readonly TrainJob[];
  jobId: string | null;
  onOpen: (id: string) => void;
}) {
  return (
    <ul className="train-jobs" data-testid="train-jobs">
      {list.map((item) => (
        <li key={item.id}>
          <button
            className="button"
            type="button"
            aria-pressed={item.id === jobId}
            onClick={() => {
              onOpen(item.id);
            }}
            data-testid="train-job"
            data-status={item.status}
          >
            {item.name} · {item.status} · {item.step}/{item.config.steps}
          </button>
        </li>
      ))}
    </ul>
  );
}

function JobHeader({ job, metrics }: { job: TrainJob; metrics: readonly StepMetrics[] }) {
  const api = useApi();
  const lastStep = metrics.findLast((m) => m.phase === 'grpo')?.step ?? 0;
  const sftSteps = metrics.filter((m) => m.phase === 'sft').length;
  const dataset = job.config.dataset?.name ?? job.config.dataset?.path;
  return (
    <header>
      <h2>
        {job.name} · {job.config.baseModel}
        {dataset ? ` · ${dataset}` : ''}
      </h2>
      {job.config.sft && (
        <span data-testid="train-job-sft" data-sft-steps={sftSteps}>
          SFT on {job.config.sft.set}: {sftSteps} steps
          {lastStep === 0 && job.status === 'running' ? ' (running)' : ''} ·
        </span>
      )}
      <span data-testid="train-job-progress">
        GRPO step {lastStep}/{job.config.steps} · {job.status}
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
      <MetricsExport jobName={job.name} metrics={metrics} />
      {job.error && (
        <p className="papers-failure" role="alert" data-testid="train-job-error">
          {job.error.name}: {job.error.message}
        </p>
      )}
    </header>
  );
}

function ChartControls(props: {
  strength: number;
  onStrength: (strength: number) => void;
  axis: XAxis;
  onAxis: (axis: XAxis) => void;
  compareId: string | null;
  others: readonly TrainJob[];
  onCompare: (id: string | null) => void;
}) {
  return (
    <div className="train-controls">
      <label>
        smoothing
        <input
          type="range"
          min="0"
          max="0.99"
          step="0.01"
          value={props.strength}
          onChange={(e) => {
            props.onStrength(Number(e.target.value));
          }}
          data-testid="train-smoothing"
        />
        <output>{props.strength.toFixed(2)}</output>
      </label>
      <Choice
        label="x axis"
        value={props.axis}
        options={axisChoices}
        onChange={(axis) => {
          props.onAxis(axis as XAxis);
        }}
        testId="train-axis"
      />
      <Choice
        label="compare with"
        value={props.compareId ?? ''}
        options={[
          { value: '', label: 'none' },
          ...props.others.map((other) => ({ value: other.id, label: other.name })),
        ]}
        onChange={(id) => {
          props.onCompare(id === '' ? null : id);
        }}
        testId="train-compare"
      />
    </div>
  );
}
