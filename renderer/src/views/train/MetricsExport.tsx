// Downloads a job's logged steps as CSV or JSON lines (metrics-export.ts), for W&B, TensorBoard or
// a spreadsheet. The file is made here from the metrics the view already holds.
import type { StepMetrics } from '../../../../app/api/index.ts';
import { exportFileName, metricsCsv, metricsJsonLines } from './metrics-export.ts';

function download(text: string, fileName: string, type: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  document.body.append(link);
  link.click();
  link.remove();
  // After the click has handed the blob to the download.
  setTimeout(() => {
    URL.revokeObjectURL(url);
  }, 0);
}

export function MetricsExport({
  jobName,
  metrics,
}: {
  jobName: string;
  metrics: readonly StepMetrics[];
}) {
  const empty = metrics.length === 0;
  return (
    <span className="train-export">
      <button
        className="button"
        type="button"
        disabled={empty}
        data-testid="train-export-csv"
        onClick={() => {
          download(metricsCsv(metrics), exportFileName(jobName, 'csv'), 'text/csv');
        }}
      >
        Export CSV
      </button>
      <button
        className="button"
        type="button"
        disabled={empty}
        data-testid="train-export-jsonl"
        title="one JSON object per step with flat keys (train/reward_mean, ...), as W&B and TensorBoard scalars"
        onClick={() => {
          download(
            metricsJsonLines(metrics),
            exportFileName(jobName, 'jsonl'),
            'application/x-ndjson',
          );
        }}
      >
        Export JSON lines
      </button>
    </span>
  );
}
