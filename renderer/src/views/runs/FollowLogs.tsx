// "Open a log folder": a path the engine reads (a file, a nano-rlm session folder, a folder of
// logs), followed as another tool writes it (runs.follow: its runs appear and grow live, each a
// link to the debugger) or imported whole (runs.importPath). The desktop app picks the folder in
// the native dialog; serve mode takes a typed path.
import { useState, type SyntheticEvent } from 'react';
import { useApi } from '../../api/ApiContext.tsx';
import { useAppInfo } from '../../shell/useAppInfo.ts';
import { countOf } from '../../format/count.ts';
import { RunLine } from './ImportRuns.tsx';
import { useLogFollows, type Follow, type PathReport } from './useLogFollows.ts';

export function FollowLogs() {
  const api = useApi();
  const appInfo = useAppInfo();
  const [path, setPath] = useState('');
  const [idle, setIdle] = useState(60);
  const logs = useLogFollows();
  const nativeDialogs = appInfo.status === 'ready' && appInfo.info.capabilities.nativeDialogs;
  const choose = () => {
    api
      .call('dialog.openPaths', { title: 'Log folder', directories: true, multiple: false })
      .then(({ paths, canceled }) => {
        if (!canceled && paths[0] !== undefined) setPath(paths[0]);
      }, logs.fail);
  };
  const submit = (event: SyntheticEvent) => {
    event.preventDefault();
    if (path.trim() !== '') logs.follow(path.trim(), idle);
  };

  return (
    <section className="runs-import" aria-label="Open a log folder">
      <form className="runs-inline" onSubmit={submit} data-testid="runs-follow-form">
        <label htmlFor="runs-follow-path">Open a log folder</label>
        <input
          id="runs-follow-path"
          data-testid="runs-follow-path"
          className="runs-path"
          placeholder="a log file, a nano-rlm session folder, or a folder of logs"
          value={path}
          onChange={(event) => {
            setPath(event.target.value);
          }}
        />
        {nativeDialogs && (
          <button type="button" className="run-button" onClick={choose}>
            Choose…
          </button>
        )}
        <label>
          end after{' '}
          <input
            type="number"
            min={1}
            className="runs-narrow"
            data-testid="runs-follow-idle"
            value={idle}
            onChange={(event) => {
              setIdle(Math.max(1, Number(event.target.value) || 60));
            }}
          />{' '}
          s quiet
        </label>
        <button type="submit" className="run-button" disabled={logs.busy} data-testid="runs-follow">
          Follow
        </button>
        <button
          type="button"
          className="run-button"
          disabled={logs.busy || path.trim() === ''}
          data-testid="runs-import-path"
          onClick={() => {
            logs.importPath(path.trim());
          }}
        >
          Import
        </button>
      </form>
      {logs.failure && (
        <p className="run-failure" role="alert" data-testid="runs-follow-failure">
          {logs.failure.name}: {logs.failure.message}
        </p>
      )}
      {logs.report && <PathImport report={logs.report} />}
      {logs.follows.map((follow) => (
        <FollowedLog key={follow.followId} follow={follow} onStop={logs.stop} />
      ))}
    </section>
  );
}

const endings: Record<string, string> = {
  answered: 'every run answered',
  idle: 'the log stopped changing',
  stopped: 'stopped',
};

/** One followed path: its runs (links, growing live), what ended it, the lines it skipped. */
function FollowedLog({ follow, onStop }: { follow: Follow; onStop: (followId: string) => void }) {
  const ended = follow.ended === null ? null : (endings[follow.ended] ?? follow.ended);
  return (
    <div className="runs-import-report" data-testid="runs-followed" data-state={follow.state}>
      <p>
        <code>{follow.path}</code>{' '}
        <span className="papers-muted" data-testid="runs-follow-state">
          {ended === null ? 'following…' : `ended: ${ended}`}
        </span>{' '}
        {follow.state === 'following' && (
          <button
            type="button"
            className="run-button"
            data-testid="runs-unfollow"
            onClick={() => {
              onStop(follow.followId);
            }}
          >
            Stop
          </button>
        )}
      </p>
      {follow.runs.length === 0 && follow.state === 'following' && (
        <p className="papers-muted">Waiting for a log to appear…</p>
      )}
      <ul>
        {follow.runs.map((run) => (
          <li key={run.runId} data-testid="runs-followed-run" data-status={run.status}>
            <RunLine run={run}>
              {run.format} · {countOf(run.events, 'event')} · {run.status}
            </RunLine>
          </li>
        ))}
      </ul>
      {follow.problems.map((problem) => (
        <p key={`${problem.file ?? ''}:${String(problem.line)}`} className="run-failure">
          {problem.name}: {problem.message}
        </p>
      ))}
    </div>
  );
}

/** What a folder import brought in, per log, and the files that could not be read. */
function PathImport({ report }: { report: PathReport }) {
  const runs = report.logs.flatMap((log) =>
    log.runs.map((run) => ({ ...run, format: log.format })),
  );
  return (
    <div className="runs-import-report" data-testid="runs-path-report">
      <p>
        {report.path}: {countOf(runs.length, 'run')} imported from{' '}
        {countOf(report.logs.length, 'log')}
        {report.failures.length > 0 && `, ${countOf(report.failures.length, 'file')} not read`}.
      </p>
      <ul>
        {runs.map((run) => (
          <li key={run.runId} data-testid="runs-path-imported" data-run={run.runId}>
            <RunLine run={run}>
              {run.format} · {countOf(run.agents, 'agent')} · {countOf(run.turns, 'turn')} ·{' '}
              {run.status}
            </RunLine>
          </li>
        ))}
      </ul>
      {report.failures.map((failure) => (
        <p key={failure.source} className="run-failure">
          {failure.source}: {failure.name}: {failure.message}
        </p>
      ))}
      {report.logs.flatMap((log) =>
        log.problems.map((problem) => (
          <p
            key={`${log.source}:${problem.file ?? ''}:${String(problem.line)}`}
            className="run-failure"
          >
            {problem.name}: {problem.message}
          </p>
        )),
      )}
    </div>
  );
}
