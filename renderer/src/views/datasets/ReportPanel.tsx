// A generated dataset's report: each group of papers the teacher wrote over, what was kept, every
// candidate dropped with its reason, the tokens and cost, and the teacher's reply as it came.
import type { GroupOutcome } from '../../../../app/api/index.ts';
import { useApi } from '../../api/ApiContext.tsx';
import { useEngineQuery } from '../papers/use-engine-query.ts';
import { money } from './DatasetList.tsx';

export function ReportPanel({ dataset }: { dataset: string }) {
  const api = useApi();
  const report = useEngineQuery(
    JSON.stringify(['dataset-report', dataset]),
    () => api.call('datasets.report', { dataset }),
    { refreshOn: 'dataset.progress' },
  );
  if (report.status === 'failed')
    return (
      <p className="papers-failure" role="alert">
        {report.failure.name}: {report.failure.message}
      </p>
    );
  if (report.status !== 'ready') return <p className="papers-muted">Loading the report…</p>;
  const { outcomes } = report.value;
  if (outcomes.length === 0)
    return <p className="papers-muted">No generation report: this dataset was not generated.</p>;
  return (
    <ol className="datasets-report" data-testid="dataset-report">
      {outcomes.map((o) => (
        <GroupReport key={o.group} outcome={o} />
      ))}
    </ol>
  );
}

function GroupReport({ outcome: o }: { outcome: GroupOutcome }) {
  return (
    <li data-testid="report-group" data-status={o.status}>
      <strong>{o.group}</strong>{' '}
      <span className="papers-muted">
        {o.paperIds.join(', ')} · {o.split} · {o.status} · kept {o.kept} · dropped{' '}
        {o.dropped.length} · {o.inputTokens + o.outputTokens} tokens · {money(o.costUsd)}
      </span>
      {o.error && (
        <p className="papers-failure">
          {o.error.name}: {o.error.message}
        </p>
      )}
      {o.dropped.length > 0 && (
        <ul>
          {o.dropped.map((d, i) => (
            <li key={i} data-testid="report-dropped">
              {d.question === null ? 'the reply' : JSON.stringify(d.question)}: {d.reason}
            </li>
          ))}
        </ul>
      )}
      {o.reply !== null && (
        <details>
          <summary>the teacher's reply</summary>
          <pre className="datasets-reply">{o.reply}</pre>
        </details>
      )}
    </li>
  );
}
