// An import's progress bar and the outcome of each input, failures with their named error, plainly.
import { importTotals, type ImportJob } from './import-job.ts';

const outcomeLabels = {
  added: 'Added',
  duplicate: 'Already in the set',
  failed: 'Failed',
} as const;

export function ImportProgress({ job, onCancel }: { job: ImportJob; onCancel: () => void }) {
  const { done, total, results } = importTotals(job);
  const percent = total === 0 ? 100 : Math.round((done / total) * 100);
  const canceled = results.filter((result) => result.error?.name === 'ImportCanceledError').length;
  const summaries: Record<ImportJob['status'], string> = {
    running: `Importing into ${job.set}: ${String(done)} of ${String(total)}`,
    canceling: `Canceling the import into ${job.set}: ${String(done)} of ${String(total)}`,
    failed: `Import into ${job.set} stopped after ${String(done)} of ${String(total)}`,
    canceled: `Import into ${job.set} canceled: ${String(done - canceled)} of ${String(total)} read, ${String(canceled)} not`,
    finished: `Imported into ${job.set}: ${String(done)} of ${String(total)} done`,
  };
  const summary = summaries[job.status];
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
        {summary}{' '}
        {job.status === 'running' && (
          <button
            type="button"
            className="papers-link-button"
            data-testid="import-cancel"
            onClick={onCancel}
          >
            Cancel
          </button>
        )}
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
