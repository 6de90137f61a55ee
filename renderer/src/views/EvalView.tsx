// Eval: launch a dataset x model (x judge) batch with a progress bar, read its report and a scores
// table that fills in live, and drill into a question: its spans against the gold ones on the paper,
// and its trajectory in the Run view. Where the view stands is in the URL (?eval=&q=&paper=).
import { useSearchParams } from 'react-router';
import type { EvalReport, EvalSummary } from '../../../app/api/index.ts';
import { useApi } from '../api/ApiContext.tsx';
import { useEngineQuery } from './papers/use-engine-query.ts';
import { LaunchForm } from './eval/LaunchForm.tsx';
import { QuestionDetail } from './eval/QuestionDetail.tsx';
import { ScoresTable } from './eval/ScoresTable.tsx';
import { useEvalResults } from './eval/useEvalResults.ts';
import { useState } from 'react';
import '../styles/papers.css';
import '../styles/eval.css';

const fixed = (value: number | null, digits = 3) => (value === null ? '–' : value.toFixed(digits));

/** Questions finished of all, the state, and a Stop button while it runs. */
function EvalProgress({ evalId, summary }: { evalId: string; summary: EvalSummary }) {
  const api = useApi();
  const finished = summary.done + summary.failed;
  return (
    <div className="eval-progress-row">
      <progress value={finished} max={Math.max(1, summary.total)} data-testid="eval-progress" />
      <span data-testid="eval-progress-text">
        {finished}/{summary.total} · {summary.status}
        {summary.failed > 0 ? ` · ${String(summary.failed)} failed` : ''}
      </span>
      {summary.status === 'running' && (
        <button
          className="button"
          type="button"
          onClick={() => void api.call('evals.cancel', { evalId })}
          data-testid="eval-cancel"
        >
          Stop
        </button>
      )}
    </div>
  );
}

function ReportFigures({ report }: { report: EvalReport }) {
  return (
    <dl className="eval-report" data-testid="eval-report">
      <dt>mean rubric</dt>
      <dd data-testid="report-rubric">{fixed(report.meanRubric)}</dd>
      <dt>mean span F1</dt>
      <dd data-testid="report-span-f1">{fixed(report.meanSpanF1)}</dd>
      {report.evidenceF1 !== null && (
        <>
          <dt>Evidence-F1</dt>
          <dd data-testid="report-evidence-f1">{fixed(report.evidenceF1)}</dd>
        </>
      )}
      <dt>latency median / p90</dt>
      <dd>
        {fixed(report.latencyMedianMs === null ? null : report.latencyMedianMs / 1000, 1)} s /{' '}
        {fixed(report.latencyP90Ms === null ? null : report.latencyP90Ms / 1000, 1)} s
      </dd>
      <dt>tokens</dt>
      <dd>{(report.inputTokens + report.outputTokens).toLocaleString()}</dd>
      <dt>cost</dt>
      <dd>{report.costUsd === null ? 'unknown' : `$${report.costUsd.toFixed(4)}`}</dd>
    </dl>
  );
}

function EvalPanel({
  evalId,
  questionId,
  paperId,
  go,
}: {
  evalId: string;
  questionId: string | undefined;
  paperId: string | undefined;
  go: (next: Record<string, string | undefined>) => void;
}) {
  const { detail, failure } = useEvalResults(evalId);
  if (failure)
    return (
      <p className="papers-failure" role="alert">
        {failure.name}: {failure.message}
      </p>
    );
  if (!detail) return <p className="papers-muted">Loading the eval…</p>;
  const { eval: summary, report, results } = detail;
  const selected = results.find((result) => result.questionId === questionId);
  return (
    <section
      className="eval-panel"
      data-testid="eval-panel"
      data-eval={evalId}
      data-status={summary.status}
    >
      <header>
        <h2>{summary.datasetName}</h2>
        <p className="eval-specs papers-muted">
          model <code>{summary.model}</code>
          {summary.judge && (
            <>
              {' '}
              · judge <code>{summary.judge}</code>
            </>
          )}
        </p>
        <EvalProgress evalId={evalId} summary={summary} />
        <ReportFigures report={report} />
      </header>
      <ScoresTable
        results={results}
        selected={questionId}
        onSelect={(id) => {
          go({ eval: evalId, q: id });
        }}
      />
      {selected && (
        <QuestionDetail
          result={selected}
          paperId={paperId}
          onSelectPaper={(id) => {
            go({ eval: evalId, q: selected.questionId, paper: id });
          }}
        />
      )}
    </section>
  );
}

export function EvalView() {
  const api = useApi();
  const [params, setParams] = useSearchParams();
  // Reloaded when an eval starts here or finishes anywhere; the list stays up while it reloads.
  const [started, setStarted] = useState(0);
  const evals = useEngineQuery('evals', async () => (await api.call('evals.list', {})).evals, {
    refreshOn: 'eval.finished',
    reloadToken: started,
  });
  const evalId = params.get('eval') ?? undefined;
  const go = (next: Record<string, string | undefined>) => {
    const search = new URLSearchParams();
    for (const [key, value] of Object.entries(next))
      if (value !== undefined) search.set(key, value);
    setParams(search);
  };
  return (
    <section className="view eval-view" data-testid="view-eval" aria-labelledby="view-eval-title">
      <h1 id="view-eval-title">Eval</h1>
      <LaunchForm
        onStarted={(id) => {
          setStarted((n) => n + 1);
          go({ eval: id });
        }}
      />
      {evals.status === 'ready' && evals.value.length > 0 && (
        <ul className="eval-list" data-testid="eval-list">
          {evals.value.map((item) => (
            <li key={item.id}>
              <button
                type="button"
                className={item.id === evalId ? 'button selected' : 'button'}
                onClick={() => {
                  go({ eval: item.id });
                }}
                data-testid="eval-list-item"
              >
                {item.datasetName} · {item.model} · {item.done + item.failed}/{item.total} ·{' '}
                {item.status}
              </button>
            </li>
          ))}
        </ul>
      )}
      {evalId && (
        <EvalPanel
          key={evalId}
          evalId={evalId}
          questionId={params.get('q') ?? undefined}
          paperId={params.get('paper') ?? undefined}
          go={go}
        />
      )}
    </section>
  );
}
