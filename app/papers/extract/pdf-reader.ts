// Reads a PDF with pdf.js (in whatever thread calls it: extraction runs in worker threads) and
// returns its text items with their boxes in page coordinates (top-left origin, y down, scale 1).
// No OCR: a page without a text layer yields no items.
import { getDocument, Util, type PDFDocumentProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
import type { TextItem } from 'pdfjs-dist/types/src/display/api.js';
import { PdfReadError, type OpenPdf, type RawItem, type RawPage } from './raw-pdf.ts';
// pdf.js runs its "worker" in this thread when it finds it on globalThis; importing it statically
// (instead of pdf.js' own dynamic import) also lets the desktop bundle include it.
// @ts-expect-error: the worker module ships without type declarations.
import * as pdfjsWorker from 'pdfjs-dist/legacy/build/pdf.worker.mjs';

(globalThis as { pdfjsWorker?: unknown }).pdfjsWorker = pdfjsWorker;

function stringField(info: unknown, key: string): string | undefined {
  if (typeof info !== 'object' || info === null || !(key in info)) return undefined;
  const value = (info as Record<string, unknown>)[key];
  return typeof value === 'string' && value.trim().length > 0 ? value.trim() : undefined;
}

async function readPage(doc: PDFDocumentProxy, pageNumber: number): Promise<RawPage> {
  const page = await doc.getPage(pageNumber);
  try {
    const viewport = page.getViewport({ scale: 1 });
    const content = await page.getTextContent();
    const items: RawItem[] = [];
    for (const entry of content.items) {
      if (!('str' in entry)) continue;
      const item: TextItem = entry;
      if (item.str.length === 0 && !item.hasEOL) continue;
      const tx = Util.transform(viewport.transform, item.transform) as number[];
      const [a = 0, b = 0, c = 0, d = 0, e = 0, f = 0] = tx;
      const size = Math.hypot(c, d);
      const rotated = Math.abs(b) > 1e-3 * Math.abs(a) || a <= 0;
      items.push({
        str: item.str,
        x: e,
        y: f - size,
        width: item.width * viewport.scale,
        height: size,
        size,
        font: item.fontName,
        eol: item.hasEOL,
        rotated,
      });
    }
    return { width: viewport.width, height: viewport.height, items };
  } finally {
    page.cleanup();
  }
}

export async function openPdf(data: Uint8Array): Promise<OpenPdf> {
  const task = getDocument({
    data,
    disableFontFace: true,
    useSystemFonts: false,
    stopAtErrors: false,
    verbosity: 0,
  });
  let doc: PDFDocumentProxy;
  try {
    doc = await task.promise;
  } catch (error) {
    await task.destroy();
    const name = error instanceof Error ? error.name : '';
    const message = error instanceof Error ? error.message : String(error);
    if (name === 'PasswordException') throw new PdfReadError('password', message);
    throw new PdfReadError('invalid', message);
  }
  try {
    if (doc.numPages === 0) throw new PdfReadError('no-pages', 'the document has no pages');
    const metadata = await doc.getMetadata().catch(() => ({ info: {} }));
    const title = stringField(metadata.info, 'Title');
    const author = stringField(metadata.info, 'Author');
    const numPages = doc.numPages;
    return {
      numPages,
      info: { ...(title ? { title } : {}), ...(author ? { author } : {}) },
      async readPages(from, to) {
        const pages: RawPage[] = [];
        for (let number = from; number <= Math.min(to, numPages); number++) {
          try {
            pages.push(await readPage(doc, number));
          } catch (error) {
            throw new PdfReadError(
              'unreadable-page',
              `page ${number} of ${numPages} cannot be read (${error instanceof Error ? error.message : String(error)})`,
            );
          }
        }
        return pages;
      },
      close: () => task.destroy(),
    };
  } catch (error) {
    await task.destroy();
    throw error;
  }
}
