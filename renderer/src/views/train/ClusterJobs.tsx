// The Ray jobs submitted from this workspace (or found on its cluster, submitted from the command
// line or another machine): pick one to follow its state and the tail of its
// logs (refreshed while it runs), and stop it. Jobs are listed as last seen, so they survive a
// reload and a cluster that does not answer.
import { useState } from 'react';
import { finishedRayJobStates, type ClusterJob } from '../../../../app/api/index.ts';
import { useApi } from '../../api/ApiContext.tsx';
import { useEngineQuery } from '../papers/use-engine-query.ts';
import { describeFailure, type Failure } from '../papers/failure.ts';
import { useClusterJob } from './useClusterJob.ts';

const stateLabel = (job: ClusterJob) => job.state ?? 'SUBMITTED';

export function ClusterJobs({
  followId,
  onFollow,
}: {
  followId: string | null;
  onFollow: (submissionId: string) => void;
}) {
  const api = useApi();
  // Reloaded when jobs are submitted, found or change state; the list stays up while it reloads.
  const listed = useEngineQuery('cluster-jobs', () => api.call('cluster.jobs', {}), {
    refreshOn: 'cluster.jobsChanged',
  });
  const jobs = listed.status === 'ready' ? listed.value.jobs : [];
  const selected = followId ?? jobs[0]?.submissionId ?? null;
  const followed = useClusterJob(selected);
  const [stopFailure, setStopFailure] = useState<Failure | null>(null);
  if (jobs.length === 0 && selected === null) return null;
  const job = followed.job ?? jobs.find((j) => j.submissionId === selected) ?? null;
  const live = job !== null && (job.state === null || !finishedRayJobStates.includes(job.state));

  const stop = () => {
    if (selected === null) return;
    setStopFailure(null);
    api.call('cluster.stop', { submissionId: selected }).then(
      () => {
        followed.refresh();
      },
      (error: unknown) => {
        setStopFailure(describeFailure(error));
      },
    );
  };

  return (
    <section
      className="cluster-jobs"
      data-testid="cluster-jobs"
      aria-labelledby="cluster-jobs-title"
    >
      <h3 id="cluster-jobs-title">Cluster jobs</h3>
      <JobList jobs={jobs} selected={selected} onFollow={onFollow} />
      {listed.status === 'failed' && (
        <p className="papers-failure" role="alert">
          {listed.failure.name}: {listed.failure.message}
        </p>
      )}
      {job && (
        <JobPanel
          job={job}
          live={live}
          followed={followed}
          stopFailure={stopFailure}
          onStop={stop}
        />
      )}
    </section>
  );
}

function JobList({
  jobs,
  selected,
  onFollow,
}: {
  jobs: readonly ClusterJob[];
  selected: string | null;
  onFollow: (submissionId: string) => void;
}) {
  return (
    <ul className="train-jobs">
      {jobs.map((item) => (
        <li key={item.submissionId}>
          <button
            className="button"
            type="button"
            aria-pressed={item.submissionId === selected}
            data-testid="cluster-job"
            data-state={stateLabel(item)}
            onClick={() => {
              onFollow(item.submissionId);
            }}
          >
            {item.name} · {item.submissionId} · {stateLabel(item)}
          </button>
        </li>
      ))}
    </ul>
  );
}

/** The followed job: its state, its message, Stop while it runs, the tail of its logs. */
function JobPanel({
  job,
  live,
  followed,
  stopFailure,
  onStop,
}: {
  job: ClusterJob;
  live: boolean;
  followed: ReturnType<typeof useClusterJob>;
  stopFailure: Failure | null;
  onStop: () => void;
}) {
  return (
    <article
      className="cluster-job-panel"
      data-testid="cluster-job-panel"
      data-state={stateLabel(job)}
      data-submission={job.submissionId}
    >
      <header>
        <strong>{job.submissionId}</strong>
        <span data-testid="cluster-job-state">{stateLabel(job)}</span>
        {job.message && <span className="settings-muted">{job.message}</span>}
        <span className="settings-muted">on {job.address}</span>
        {live && (
          <button className="button" type="button" onClick={onStop} data-testid="cluster-stop">
            Stop
          </button>
        )}
      </header>
      {followed.failure && (
        <p className="papers-failure" role="alert" data-testid="cluster-job-failure">
          {followed.failure.name}: {followed.failure.message}
        </p>
      )}
      {stopFailure && (
        <p className="papers-failure" role="alert">
          {stopFailure.name}: {stopFailure.message}
        </p>
      )}
      {followed.logs && (
        <>
          <p className="settings-muted">
            logs: last {Math.min(followed.logs.totalLines, 200)} of {followed.logs.totalLines} lines
            {live ? ', refreshed while it runs' : ''}
          </p>
          <pre className="cluster-logs" data-testid="cluster-logs">
            {followed.logs.text}
          </pre>
        </>
      )}
    </article>
  );
}
