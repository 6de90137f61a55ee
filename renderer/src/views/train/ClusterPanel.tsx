// To the cluster: the job configured in the form above, exported in SkyRL's formats to a folder of
// the workspace (its path and files are shown), then submitted to the Ray cluster of Settings >
// Cluster and followed below; with "upload with the job" the submit sends the folder along as the
// job's working directory, so nothing is copied by hand. The latest export stays offered after a reload. "Find jobs" adds the
// cluster's RLM Studio jobs submitted elsewhere (`rlm-studio cluster submit`, another machine).
import { useEffect, useState, type Dispatch, type SetStateAction } from 'react';
import { ClusterTarget, type ClusterExport } from '../../../../app/api/index.ts';
import { useApi } from '../../api/ApiContext.tsx';
import { describeFailure, type Failure } from '../papers/failure.ts';
import { ClusterJobs } from './ClusterJobs.tsx';
import type { JobConfigResult } from './job-config.ts';

const targetFields = [
  { key: 'remoteDir', label: 'folder on the cluster', width: '260px' },
  { key: 'remoteModel', label: 'base model on the cluster', width: '200px' },
  { key: 'skyrlDir', label: 'SkyRL checkout on the cluster', width: '220px' },
  { key: 'nodes', label: 'nodes', width: '70px' },
  { key: 'gpusPerNode', label: 'GPUs per node', width: '70px' },
  { key: 'valFraction', label: 'validation share', width: '80px' },
] as const;
type TargetKey = (typeof targetFields)[number]['key'];

const numeric = new Set<TargetKey>(['nodes', 'gpusPerNode', 'valFraction']);

type Target = Record<TargetKey, string>;

const defaultTarget: Target = {
  remoteDir: '/mnt/shared/rlm-studio/job',
  remoteModel: 'Qwen/Qwen3-4B',
  skyrlDir: '',
  nodes: '1',
  gpusPerNode: '8',
  valFraction: '0.1',
};

// An empty SkyRL checkout is left out, so the engine's default applies.
function parseTarget(
  target: Target,
  upload: boolean,
): { ok: true; data: ClusterTarget } | { ok: false; failure: Failure } {
  const parsed = ClusterTarget.safeParse({
    ...Object.fromEntries(
      targetFields
        .filter(({ key }) => target[key].trim() !== '' || key !== 'skyrlDir')
        .map(({ key }) => [key, numeric.has(key) ? Number(target[key]) : target[key]]),
    ),
    upload,
  });
  if (parsed.success) return { ok: true, data: parsed.data };
  const issue = parsed.error.issues[0];
  return {
    ok: false,
    failure: {
      name: 'InvalidClusterTarget',
      message: `${issue?.path.join('.') ?? 'target'}: ${issue?.message ?? 'invalid'}`,
    },
  };
}

/** One engine call at a time: busy while it runs, its failure named once it fails. */
function useBusyWork() {
  const [failure, setFailure] = useState<Failure | null>(null);
  const [busy, setBusy] = useState(false);
  const run = (work: () => Promise<void>) => {
    setBusy(true);
    setFailure(null);
    work().then(
      () => {
        setBusy(false);
      },
      (error: unknown) => {
        setBusy(false);
        setFailure(describeFailure(error));
      },
    );
  };
  return { failure, setFailure, busy, run };
}

// The newest export is offered again after a reload, unless one was made meanwhile.
function useNewestExport(setFailure: (failure: Failure) => void) {
  const api = useApi();
  const [exported, setExported] = useState<ClusterExport | null>(null);
  useEffect(() => {
    let live = true;
    api.call('cluster.exports', {}).then(
      ({ exports }) => {
        if (live) setExported((current) => current ?? exports[0] ?? null);
      },
      (error: unknown) => {
        if (live) setFailure(describeFailure(error));
      },
    );
    return () => {
      live = false;
    };
  }, [api, setFailure]);
  return [exported, setExported] as const;
}

function useClusterPanel(job: JobConfigResult | null) {
  const api = useApi();
  const [target, setTarget] = useState<Target>(defaultTarget);
  const [upload, setUpload] = useState(false);
  const { failure, setFailure, busy, run } = useBusyWork();
  const [exported, setExported] = useNewestExport(setFailure);
  const [followId, setFollowId] = useState<string | null>(null);
  const [foundCount, setFoundCount] = useState<number | null>(null);

  const exportJob = () => {
    if (job === null) return;
    if (!job.ok) {
      setFailure(job.failure);
      return;
    }
    const parsed = parseTarget(target, upload);
    if (!parsed.ok) {
      setFailure(parsed.failure);
      return;
    }
    run(async () => {
      const answer = await api.call('cluster.export', {
        name: job.name,
        config: job.config,
        target: parsed.data,
      });
      setExported(answer.export);
    });
  };
  const submit = () => {
    if (exported === null) return;
    run(async () => {
      const answer = await api.call('cluster.submit', { exportId: exported.id });
      setFollowId(answer.job.submissionId);
    });
  };
  const findJobs = () => {
    setFoundCount(null);
    run(async () => {
      const answer = await api.call('cluster.findJobs', {});
      setFoundCount(answer.added);
    });
  };
  const actions = { exportJob, submit, findJobs };
  return {
    target,
    setTarget,
    upload,
    setUpload,
    exported,
    failure,
    busy,
    followId,
    setFollowId,
    foundCount,
    actions,
  };
}

export function ClusterPanel({ job }: { job: JobConfigResult | null }) {
  const panel = useClusterPanel(job);
  const { failure, exported, foundCount } = panel;
  return (
    <section
      className="cluster-panel"
      data-testid="cluster-panel"
      aria-labelledby="cluster-panel-title"
    >
      <h2 id="cluster-panel-title">To the cluster</h2>
      <div className="train-form">
        <TargetInputs target={panel.target} setTarget={panel.setTarget} />
        <label
          className="train-check"
          title="submit uploads the export folder as the job's working directory (at most 500 MiB); the folder on the cluster then only receives checkpoints"
        >
          <input
            type="checkbox"
            checked={panel.upload}
            onChange={(e) => {
              panel.setUpload(e.target.checked);
            }}
            data-testid="cluster-upload"
          />
          upload with the job
        </label>
        <ClusterButtons busy={panel.busy} exported={exported !== null} {...panel.actions} />
      </div>
      {foundCount !== null && (
        <p className="settings-muted" role="status" data-testid="cluster-found">
          {foundCount === 0
            ? 'No other RLM Studio jobs on the cluster.'
            : `${String(foundCount)} job${foundCount === 1 ? '' : 's'} found on the cluster, added below.`}
        </p>
      )}
      {failure && (
        <p className="papers-failure" role="alert" data-testid="cluster-failure">
          {failure.name}: {failure.message}
        </p>
      )}
      {exported && <ExportResult exported={exported} />}
      <ClusterJobs followId={panel.followId} onFollow={panel.setFollowId} />
    </section>
  );
}

function TargetInputs({
  target,
  setTarget,
}: {
  target: Target;
  setTarget: Dispatch<SetStateAction<Target>>;
}) {
  return targetFields.map((field) => (
    <label key={field.key}>
      {field.label}
      <input
        value={target[field.key]}
        style={{ width: field.width }}
        type={numeric.has(field.key) ? 'number' : 'text'}
        step={field.key === 'valFraction' ? 'any' : '1'}
        onChange={(e) => {
          setTarget((current) => ({ ...current, [field.key]: e.target.value }));
        }}
        data-testid={`cluster-${field.key}`}
      />
    </label>
  ));
}

function ClusterButtons({
  busy,
  exported,
  exportJob,
  submit,
  findJobs,
}: {
  busy: boolean;
  exported: boolean;
  exportJob: () => void;
  submit: () => void;
  findJobs: () => void;
}) {
  return (
    <>
      <button
        className="button"
        type="button"
        onClick={exportJob}
        disabled={busy}
        data-testid="cluster-export"
      >
        Export to cluster
      </button>
      <button
        className="button"
        type="button"
        onClick={submit}
        disabled={busy || !exported}
        data-testid="cluster-submit"
        title="submits the export's entrypoint to the cluster of Settings > Cluster"
      >
        Submit
      </button>
      <button
        className="button"
        type="button"
        onClick={findJobs}
        disabled={busy}
        data-testid="cluster-find-jobs"
        title="adds the cluster's RLM Studio jobs submitted elsewhere (the command line, another machine) to the list below"
      >
        Find jobs
      </button>
    </>
  );
}

function ExportResult({ exported }: { exported: ClusterExport }) {
  return (
    <div className="cluster-export" data-testid="cluster-export-result">
      <p>
        <strong>{exported.name}</strong> · {exported.trainRows} train and {exported.valRows}{' '}
        validation rows, in <code data-testid="cluster-export-dir">{exported.dir}</code>
      </p>
      <ul data-testid="cluster-export-files">
        {exported.files.map((file) => (
          <li key={file.name}>
            <code>{file.name}</code> · {file.bytes.toLocaleString()} bytes
          </li>
        ))}
      </ul>
      <p className="settings-muted" data-testid="cluster-export-hint">
        {exported.upload ? (
          <>
            Submit uploads this folder as the job&apos;s working directory; checkpoints go to{' '}
            <code>{exported.remoteDir}</code>
          </>
        ) : (
          <>
            Copy this folder to <code>{exported.remoteDir}</code> on the cluster before submitting
          </>
        )}
        ; the job runs <code>{exported.entrypoint.slice(0, 160)}…</code>
      </p>
    </div>
  );
}
