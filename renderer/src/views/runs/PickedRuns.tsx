// What the Runs view does with the runs picked in its table: compare two, export as JSON lines or
// delete, with a notice or a named failure after each.
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { useApi } from '../../api/ApiContext.tsx';
import { countOf } from '../../format/count.ts';
import { describeFailure, type Failure } from '../papers/failure.ts';
import { runsHref, type RunsLocation } from './runs-route.ts';

export function usePickedRuns() {
  const [picked, setPicked] = useState<Set<string>>(new Set());
  const toggle = (runId: string) => {
    setPicked((previous) => {
      const next = new Set(previous);
      if (next.has(runId)) next.delete(runId);
      else next.add(runId);
      return next;
    });
  };
  const clear = () => {
    setPicked(new Set());
  };
  return { picked, toggle, clear };
}

function download(text: string, fileName: string) {
  const url = URL.createObjectURL(new Blob([text], { type: 'application/x-ndjson' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.click();
  URL.revokeObjectURL(url);
}

function usePickedActions(pickedIds: readonly string[], onDeleted: () => void) {
  const api = useApi();
  const [notice, setNotice] = useState<string | null>(null);
  const [failure, setFailure] = useState<Failure | null>(null);
  const exportPicked = async () => {
    setFailure(null);
    try {
      const { text, fileName } = await api.call('runs.export', { runIds: [...pickedIds] });
      download(text, fileName);
      setNotice(`Exported ${countOf(pickedIds.length, 'run')} as ${fileName}`);
    } catch (error) {
      setFailure(describeFailure(error));
    }
  };
  const deletePicked = async () => {
    const question = `Delete ${countOf(pickedIds.length, 'run')} and their events? This cannot be undone.`;
    if (!window.confirm(question)) return;
    setFailure(null);
    let deleted = 0;
    for (const runId of pickedIds) {
      try {
        if ((await api.call('runs.delete', { runId })).deleted) deleted++;
      } catch (error) {
        setFailure(describeFailure(error));
      }
    }
    onDeleted();
    setNotice(`Deleted ${countOf(deleted, 'run')}`);
  };
  return { notice, failure, exportPicked, deletePicked };
}

export function PickedRunsActions({
  location,
  pickedIds,
  onDeleted,
}: {
  location: RunsLocation;
  pickedIds: readonly string[];
  onDeleted: () => void;
}) {
  const navigate = useNavigate();
  const { notice, failure, exportPicked, deletePicked } = usePickedActions(pickedIds, onDeleted);
  return (
    <div className="runs-actions">
      <button
        type="button"
        className="run-button"
        data-testid="runs-compare"
        disabled={pickedIds.length !== 2}
        onClick={() => {
          const [a = '', b = ''] = pickedIds;
          void navigate(runsHref({ filters: location.filters, compare: [a, b] }));
        }}
      >
        Compare two
      </button>
      <button
        type="button"
        className="run-button"
        data-testid="runs-export"
        disabled={pickedIds.length === 0}
        onClick={() => void exportPicked()}
      >
        Export
      </button>
      <button
        type="button"
        className="run-button"
        data-testid="runs-delete"
        disabled={pickedIds.length === 0}
        onClick={() => void deletePicked()}
      >
        Delete
      </button>
      <span className="papers-muted">{pickedIds.length} picked</span>
      {notice && (
        <span className="papers-muted" role="status" data-testid="runs-notice">
          {notice}
        </span>
      )}
      {failure && (
        <span className="run-failure" role="alert">
          {failure.name}: {failure.message}
        </span>
      )}
    </div>
  );
}
