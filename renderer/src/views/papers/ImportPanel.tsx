// Adding papers to the target set: a file picker (the native dialog in the desktop app, a browser
// file input elsewhere), arXiv ids, and the running import's progress and per-input outcomes. Drops
// anywhere on the view land here too (PapersView owns the drop zone).
import { useRef, useState, type SubmitEvent } from 'react';
import { useApi } from '../../api/ApiContext.tsx';
import { describeFailure, type Failure } from './failure.ts';
import { ImportProgress } from './ImportProgress.tsx';
import type { PaperImport } from './usePaperImport.ts';

export interface ImportTarget {
  set: string;
  /** Not in the workspace yet: the import creates it. */
  isNew: boolean;
}

export interface ImportPanelProps {
  target: ImportTarget | undefined;
  importer: PaperImport;
  nativeDialogs: boolean;
}

export function ImportPanel({ target, importer, nativeDialogs }: ImportPanelProps) {
  const api = useApi();
  const inputRef = useRef<HTMLInputElement>(null);
  const [problem, setProblem] = useState<Failure | undefined>();
  const disabled = !target || importer.busy;

  const addFiles = async () => {
    setProblem(undefined);
    if (!target) return;
    if (!nativeDialogs) {
      inputRef.current?.click();
      return;
    }
    try {
      const picked = await api.call('dialog.openPaths', {
        title: `Add papers to ${target.set}`,
        multiple: true,
        filters: [{ name: 'PDF or QASPER JSON', extensions: ['pdf', 'json'] }],
      });
      if (!picked.canceled && picked.paths.length > 0)
        await importer.importPaths(target.set, picked.paths);
    } catch (error) {
      setProblem(describeFailure(error));
    }
  };

  return (
    <section className="papers-panel" aria-labelledby="paper-import-title">
      <h2 id="paper-import-title" className="papers-subheading">
        Add papers
      </h2>
      <TargetLine target={target} />
      <div className="papers-row">
        <button
          type="button"
          className="button"
          data-testid="import-button"
          disabled={disabled}
          onClick={() => void addFiles()}
        >
          Add files…
        </button>
        <input
          ref={inputRef}
          type="file"
          multiple
          accept=".pdf,.json,application/pdf,application/json"
          hidden
          data-testid="import-input"
          onChange={(event) => {
            const files = [...(event.target.files ?? [])];
            event.target.value = '';
            if (target && files.length > 0) void importer.importFiles(target.set, files);
          }}
        />
      </div>
      <ArxivForm target={target} importer={importer} disabled={disabled} />
      {problem && (
        <p className="papers-failure" role="alert">
          {problem.name}: {problem.message}
        </p>
      )}
      {importer.job && <ImportProgress job={importer.job} onCancel={importer.cancel} />}
    </section>
  );
}

function TargetLine({ target }: { target: ImportTarget | undefined }) {
  return (
    <p className="papers-muted" data-testid="import-target">
      {target ? (
        <>
          Into <strong>{target.set}</strong>
          {target.isNew && ' (new set)'}. Drop PDFs or QASPER JSON anywhere here, or:
        </>
      ) : (
        'Name a new set or pick one to add papers to it.'
      )}
    </p>
  );
}

/** arXiv ids (spaces or commas between them), fetched into the target set. */
function ArxivForm({
  target,
  importer,
  disabled,
}: {
  target: ImportTarget | undefined;
  importer: PaperImport;
  disabled: boolean;
}) {
  const [arxiv, setArxiv] = useState('');
  const fetchArxiv = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    const ids = arxiv.split(/[\s,]+/).filter((id) => id !== '');
    if (!target || ids.length === 0) return;
    setArxiv('');
    void importer.importArxiv(target.set, ids);
  };

  return (
    <form className="papers-row" onSubmit={fetchArxiv}>
      <input
        type="text"
        value={arxiv}
        placeholder="arXiv ids, e.g. 1706.03762"
        aria-label="arXiv ids"
        data-testid="arxiv-ids"
        onChange={(event) => {
          setArxiv(event.target.value);
        }}
      />
      <button type="submit" className="button" disabled={disabled || arxiv.trim() === ''}>
        Fetch
      </button>
    </form>
  );
}
