// PDFium's documents live in its wasm heap: every path frees them (a read paper, a page that
// fails, a document that does not open). The heap only grows, so a leak shows as growth: after
// a first round, reading the same papers and bad documents again many times must not grow it.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { imageOnlyPage, makePdf, textPage } from '../fixtures/make-pdf.ts';
import { extractPdf, readRawPdf } from './extract-pdf.ts';
import { pdfiumHeapBytes } from './pdfium-reader.ts';

const paper = readFileSync(
  new URL('../../../../shared/data/papers/1706.03762v5.pdf', import.meta.url),
);
const corrupt = Buffer.concat([
  Buffer.from('%PDF-1.7\n'),
  Buffer.alloc(5000, 0x41),
  Buffer.from('\n%%EOF\n'),
]);
const locked = makePdf({ pages: [textPage(['secret'])], encrypted: true });
const scan = makePdf({ pages: [imageOnlyPage] });
const noPages = makePdf({ pages: [] });

/** One of each: a real paper read whole, and each bad document failing by name. */
async function round(): Promise<string[]> {
  const outcomes: string[] = [];
  for (const [name, bytes] of [
    ['paper', paper],
    ['corrupt', corrupt],
    ['locked', locked],
    ['scan', scan],
    ['nopages', noPages],
  ] as const) {
    try {
      await extractPdf(`${name}.pdf`, new Uint8Array(bytes), 'pdfium');
      outcomes.push(`${name}: read`);
    } catch (error) {
      outcomes.push(`${name}: ${(error as Error).name}`);
    }
  }
  return outcomes;
}

describe('the PDFium reader', () => {
  it('names each bad document and frees every document on every path', async () => {
    expect(await round()).toEqual([
      'paper: read',
      'corrupt: PdfCorruptError',
      'locked: PdfEncryptedError',
      'scan: PdfNoTextLayerError',
      'nopages: PdfNoPagesError',
    ]);
    const after = await pdfiumHeapBytes();
    // 25 more rounds: 25 copies of a 2 MB paper alone would grow the heap by ~50 MB if kept.
    for (let i = 0; i < 25; i++) await round();
    expect(await pdfiumHeapBytes()).toBe(after);
  }, 120_000);

  it('reads the same words from the same bytes every time', async () => {
    const first = await readRawPdf(new Uint8Array(paper), 'pdfium');
    const again = await readRawPdf(new Uint8Array(paper), 'pdfium');
    expect(again).toEqual(first);
    expect(first.pages).toHaveLength(15);
    // Words, in the order the page draws them (the title before the licence note above it).
    expect(first.pages[0]?.items.slice(0, 4).map((item) => item.str)).toEqual([
      'Attention',
      'Is',
      'All',
      'You',
    ]);
  });
});
