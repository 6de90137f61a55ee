// The runs as a table: pick rows (checkboxes) to compare, export or delete; a question opens its run.
import { Link } from 'react-router';
import type { RunSummaryPayload } from '../../../../app/api/index.ts';
import { formatCost, formatDuration, formatTokens } from '../run/agent-summary.ts';
import { runHref } from '../run/route.ts';

export interface RunsTableProps {
  runs: readonly RunSummaryPayload[];
  picked: ReadonlySet<string>;
  onToggle: (runId: string) => void;
}

export function RunsTable({ runs, picked, onToggle }: RunsTableProps) {
  return (
    <table className="runs-table" data-testid="runs-table">
      <thead>
        <tr>
          <th aria-label="Pick" />
          <th>Question</th>
          <th>Status</th>
          <th>Model</th>
          <th>Set</th>
          <th>Agents</th>
          <th>Turns</th>
          <th>Tokens</th>
          <th>Cost</th>
          <th>Score</th>
          <th>Time</th>
          <th>Created</th>
        </tr>
      </thead>
      <tbody>
        {runs.map((run) => (
          <tr key={run.id} data-testid="run-row" data-run={run.id} data-status={run.status}>
            <td>
              <input
                type="checkbox"
                data-testid="run-pick"
                aria-label={`Pick run ${run.id}`}
                checked={picked.has(run.id)}
                onChange={() => {
                  onToggle(run.id);
                }}
              />
            </td>
            <td className="runs-question">
              <Link to={runHref({ runId: run.id })} className="papers-link" data-testid="run-open">
                {run.question || '(no question)'}
              </Link>
              {run.parentRunId !== null && <span className="papers-muted"> · fork</span>}
              {run.source !== 'live' && <span className="papers-muted"> · {run.source}</span>}
            </td>
            <td>
              <span className={`state-pill run-${run.status}`}>{run.status}</span>
            </td>
            <td className="runs-model">{run.model}</td>
            <td>{run.set}</td>
            <td>{run.agents}</td>
            <td>{run.turns}</td>
            <td>{formatTokens(run.inputTokens + run.outputTokens)}</td>
            <td>{formatCost(run.costUsd)}</td>
            <td>{run.score === null ? '—' : run.score.toFixed(2)}</td>
            <td className="runs-nowrap">
              {run.finishedAt === null ? '—' : formatDuration(run.finishedAt - run.createdAt)}
            </td>
            <td>{new Date(run.createdAt).toLocaleString()}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
