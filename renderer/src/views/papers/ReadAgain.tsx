// Which engine read a paper, and, for one read by pdf.js before PDFium did ingestion, reading it
// again with PDFium on request (papers.reextract; the reader reloads on papers.setsChanged).
import { useState } from 'react';
import type { PaperDetail } from '../../../../app/api/index.ts';
import { useApi } from '../../api/ApiContext.tsx';
import { describeFailure, type Failure } from './failure.ts';

const engineNames: Record<PaperDetail['engine'], string> = {
  pdfium: 'PDFium',
  'pdf.js': 'pdf.js',
  qasper: 'QASPER',
};

export function engineName(engine: PaperDetail['engine']): string {
  return engineNames[engine];
}

export function ReadAgain({ set, paper }: { set: string; paper: PaperDetail }) {
  const api = useApi();
  const [state, setState] = useState<
    { status: 'idle' } | { status: 'reading' } | { status: 'failed'; failure: Failure }
  >({ status: 'idle' });
  if (!paper.hasPdf || paper.engine !== 'pdf.js') return null;
  const read = () => {
    setState({ status: 'reading' });
    api.call('papers.reextract', { set, ids: [paper.id] }).then(
      ({ results }) => {
        const failed = results.find((result) => result.outcome === 'failed')?.error;
        setState(failed ? { status: 'failed', failure: failed } : { status: 'idle' });
      },
      (error: unknown) => {
        setState({ status: 'failed', failure: describeFailure(error) });
      },
    );
  };
  return (
    <p className="papers-muted paper-read-again" data-testid="paper-read-again">
      Read by pdf.js, before PDFium did ingestion.{' '}
      <button
        type="button"
        className="papers-link-button"
        disabled={state.status === 'reading'}
        onClick={read}
        title="Spans marked on the old text may move"
      >
        {state.status === 'reading' ? 'Reading again…' : 'Read again with PDFium'}
      </button>
      {state.status === 'failed' && (
        <span className="papers-failure" role="alert">
          {' '}
          {state.failure.name}: {state.failure.message}
        </span>
      )}
    </p>
  );
}
