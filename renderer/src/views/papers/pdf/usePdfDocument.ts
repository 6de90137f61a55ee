// Opens a paper's PDF with pdf.js and fetches its pages (their sizes lay out the scroller before any
// page is drawn). The document is destroyed on every path: a new paper, unmount, or a failed load.
import { useEffect, useState } from 'react';
import { describeFailure, type Failure } from '../failure.ts';
import { loadPdfjs, type Pdfjs, type PDFPageProxy } from './pdfjs.ts';

export type PdfDocumentState =
  | { status: 'idle' }
  | { status: 'loading' }
  | { status: 'ready'; pdfjs: Pdfjs; pages: PDFPageProxy[] }
  | { status: 'failed'; failure: Failure };

/** `bytes` undefined: nothing to open yet. The bytes are copied: pdf.js moves them to its worker. */
export function usePdfDocument(bytes: Uint8Array | undefined): PdfDocumentState {
  const [state, setState] = useState<{ bytes: Uint8Array; state: PdfDocumentState } | null>(null);

  useEffect(() => {
    if (!bytes) return;
    let live = true;
    // A function, not the flag itself: the cleanup flips it while the async steps await.
    const isLive = () => live;
    let destroy: (() => Promise<void>) | null = null;
    loadPdfjs()
      .then(async (pdfjs) => {
        if (!isLive()) return;
        const task = pdfjs.getDocument({ data: bytes.slice() });
        destroy = () => task.destroy();
        const document = await task.promise;
        const pages = await Promise.all(
          Array.from({ length: document.numPages }, (_, index) => document.getPage(index + 1)),
        );
        if (isLive()) setState({ bytes, state: { status: 'ready', pdfjs, pages } });
      })
      .catch((error: unknown) => {
        // After cleanup, pdf.js rejects the load we destroyed; that is ours, not the user's failure.
        if (isLive())
          setState({ bytes, state: { status: 'failed', failure: describeFailure(error) } });
      });
    return () => {
      live = false;
      void destroy?.();
    };
  }, [bytes]);

  if (!bytes) return { status: 'idle' };
  if (state?.bytes !== bytes) return { status: 'loading' };
  return state.state;
}
