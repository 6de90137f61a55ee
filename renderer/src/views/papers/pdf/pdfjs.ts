// pdf.js, loaded on first use (never in the first paint) with its worker bundled by Vite (offline,
// never a CDN). One module promise for the app; a failed load is forgotten so a later try can work.
import type * as PdfjsModule from 'pdfjs-dist';

export type Pdfjs = typeof PdfjsModule;
export type { PDFDocumentProxy, PDFPageProxy } from 'pdfjs-dist';

let loading: Promise<Pdfjs> | null = null;

export function loadPdfjs(): Promise<Pdfjs> {
  loading ??= Promise.all([
    import('pdfjs-dist'),
    import('pdfjs-dist/build/pdf.worker.min.mjs?url'),
  ]).then(
    ([pdfjs, worker]) => {
      pdfjs.GlobalWorkerOptions.workerSrc = worker.default;
      return pdfjs;
    },
    (error: unknown) => {
      loading = null;
      throw error;
    },
  );
  return loading;
}

/** pdf.js's own cancellations (a render or text layer we stopped), as opposed to real failures. */
export function isPdfjsCancellation(error: unknown): boolean {
  return (
    error instanceof Error &&
    (error.name === 'RenderingCancelledException' || error.name === 'AbortException')
  );
}
