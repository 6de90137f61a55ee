// Import run logs: our own export, alexzhang13/rlm logs (children nested in rlm_calls become child
// agents), SkyRL eval dumps or DSPy RLM predictions. The file's text goes to runs.import; the
// report lists what came in (each run a link) and every line that could not. A nano-rlm session
// is a folder: FollowLogs opens it by path.
import { useState, type ReactNode } from 'react';
import { Link } from 'react-router';
import type { CommandResponse } from '../../../../app/api/index.ts';
import { useApi } from '../../api/ApiContext.tsx';
import { describeFailure, type Failure } from '../papers/failure.ts';
import { runHref } from '../run/route.ts';
import { countOf } from '../../format/count.ts';

type Format = 'auto' | 'ours' | 'rlm-log' | 'skyrl' | 'dspy';
type Report = CommandResponse<'runs.import'>;

export function ImportRuns() {
  const api = useApi();
  const [format, setFormat] = useState<Format>('auto');
  const [state, setState] = useState<
    | { status: 'idle' }
    | { status: 'importing'; name: string }
    | { status: 'done'; name: string; report: Report }
    | { status: 'failed'; name: string; failure: Failure }
  >({ status: 'idle' });

  const importFile = async (file: File) => {
    setState({ status: 'importing', name: file.name });
    try {
      const text = await file.text();
      const report = await api.call('runs.import', { text, format, name: file.name });
      setState({ status: 'done', name: file.name, report });
    } catch (error) {
      setState({ status: 'failed', name: file.name, failure: describeFailure(error) });
    }
  };

  return (
    <section className="runs-import" aria-label="Import runs">
      <label className="runs-inline">
        Import a log
        <select
          data-testid="runs-import-format"
          value={format}
          onChange={(event) => {
            setFormat(event.target.value as Format);
          }}
        >
          <option value="auto">format: detect</option>
          <option value="ours">RLM Studio export</option>
          <option value="rlm-log">alexzhang13/rlm log</option>
          <option value="skyrl">SkyRL eval dump</option>
          <option value="dspy">DSPy RLM prediction</option>
        </select>
        <input
          type="file"
          accept=".jsonl,.json,.ndjson,.txt"
          data-testid="runs-import-input"
          onChange={(event) => {
            const file = event.target.files?.[0];
            event.target.value = '';
            if (file) void importFile(file);
          }}
        />
      </label>
      {state.status === 'importing' && <p className="papers-muted">Importing {state.name}…</p>}
      {state.status === 'failed' && (
        <p className="run-failure" role="alert" data-testid="runs-import-failure">
          {state.name} could not be imported. {state.failure.name}: {state.failure.message}
        </p>
      )}
      {state.status === 'done' && <ImportReport name={state.name} report={state.report} />}
    </section>
  );
}

/** What came in (each run a link) and every line that could not. */
function ImportReport({ name, report }: { name: string; report: Report }) {
  return (
    <div
      className="runs-import-report"
      data-testid="runs-import-report"
      data-format={report.format}
    >
      <p>
        {name}: {countOf(report.runs.length, 'run')} imported as {report.format}
        {report.problems.length > 0 && `, ${String(report.problems.length)} lines skipped`}.
      </p>
      <ul>
        {report.runs.map((run) => (
          <li key={run.runId} data-testid="runs-imported" data-run={run.runId}>
            <RunLine run={run}>
              {countOf(run.agents, 'agent')} · {countOf(run.turns, 'turn')} · {run.status}
              {run.renamedFrom !== null && ` · renamed from ${run.renamedFrom}`}
            </RunLine>
          </li>
        ))}
      </ul>
      {report.problems.map((problem) => (
        <p key={problem.line} className="run-failure">
          line {problem.line}: {problem.name}: {problem.message}
        </p>
      ))}
    </div>
  );
}

/** An imported or followed run: its question as a link to the debugger, then what it holds. */
export function RunLine({
  run,
  children,
}: {
  run: { runId: string; question: string };
  children: ReactNode;
}) {
  return (
    <>
      <Link to={runHref({ runId: run.runId })} className="papers-link">
        {run.question || run.runId}
      </Link>{' '}
      <span className="papers-muted">{children}</span>
    </>
  );
}
