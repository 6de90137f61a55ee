// An import's progress bar and the outcome of each input, failures with their named error, plainly.
import { importTotals, type ImportJob } from './import-job.ts';

const outcomeLabels = {
  added: 'Added',
  duplicate: 'Already in the set',
  failed: 'Failed',
} as const;

export function ImportProgress({ job }: { job: ImportJob }) {
  const { done, total, results } = importTotals(job);
  const percent = total === 0 ? 100 : Math.round((done / total) * 100);
  const summary =
    job.status === 'running'
      ? `Importing into ${job.set}: ${String(done)} of ${String(total)}`
      : job.status === 'failed'
        ? `Import into ${job.set} stopped after ${String(done)} of ${String(total)}`
        : `Imported into ${job.set}: ${String(done)} of ${String(total)} done`;
  return (
    <div className="import-progress" data-state={job.status}>
      <div
        className="import-bar"
        role="progressbar"
        aria-label="Import progress"
        aria-valuemin={0}
        aria-valuemax={total}
        aria-valuenow={done}
        aria-valuetext={summary}
        data-testid="import-progress"
        data-state={job.status}
      >
        <div className="import-bar-fill" style={{ width: `${String(percent)}%` }} />
      </div>
      <p className="papers-muted import-summary" aria-live="polite">
        {summary}
      </p>
      {job.error && (
        <p className="papers-failure" role="alert">
          {job.error.name}: {job.error.message}
        </p>
      )}
      {results.length > 0 && (
        <ul className="import-results">
          {results.map((result, index) => (
            <li
              key={`${result.input}-${String(index)}`}
              className={`import-result outcome-${result.outcome}`}
              data-testid="import-result"
              data-outcome={result.outcome}
            >
              <span className="import-result-outcome">{outcomeLabels[result.outcome]}</span>
              <span className="import-result-input">{result.input}</span>
              {result.error && (
                <span className="import-result-error">
                  <strong>{result.error.name}</strong>: {result.error.message}
                </span>
              )}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
