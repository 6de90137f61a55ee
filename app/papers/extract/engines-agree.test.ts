// PDFium does ingestion, pdf.js draws the reader: a highlight computed from PDFium's words must
// land on the words as the PDF draws them. On the 20 shared papers every word of three or more
// letters gets its highlight box (the app's highlight code over its characters) from each engine,
// and is checked against poppler's own word boxes (`pdftotext -bbox`, a third engine, the
// reference): left and right edges within 2 pt, and on the same line. pdf.js' boxes come from
// its text items, which are whole lines here (the highlight spreads a line's width evenly over its
// characters), so its figure is printed beside PDFium's, not asserted. The reader's text layer
// itself is measured in the browser (e2e/papers.e2e.test.ts).
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { HighlightBox } from '../../api/index.ts';
import { packRuns } from '../document.ts';
import { highlightBoxes } from '../highlight.ts';
import { readRawPdf } from './extract-pdf.ts';
import type { ExtractEngine } from './extraction.ts';
import { layoutText } from './text-layout.ts';

const papersDir = new URL('../../../../shared/data/papers/', import.meta.url).pathname;
const papers = readdirSync(papersDir)
  .filter((name) => name.endsWith('.pdf'))
  .sort();

interface Word {
  page: number;
  text: string;
  box: HighlightBox;
}

/** Each word of three or more letters on one line, with the box the app would highlight. */
async function engineWords(file: string, engine: ExtractEngine): Promise<Word[]> {
  const layout = layoutText(await readRawPdf(new Uint8Array(readFileSync(file)), engine));
  const runs = packRuns(layout.runs);
  const found: Word[] = [];
  for (const match of layout.fullText.matchAll(/\p{L}{3,}/gu)) {
    const boxes = highlightBoxes(runs, match.index, match.index + match[0].length);
    const [box] = boxes;
    if (boxes.length === 1 && box) found.push({ page: box.page, text: match[0], box });
  }
  return found;
}

interface ReferenceWord {
  box: HighlightBox;
  /** The word is letters alone: its box's edges are the letters' (not a comma's). */
  clean: boolean;
}

/** Poppler's words (pdftotext -bbox), by page and letters. */
function popplerWords(file: string): Map<string, ReferenceWord[]> {
  const html = execFileSync('pdftotext', ['-q', '-bbox', file, '-'], {
    encoding: 'utf8',
    maxBuffer: 256 << 20,
  });
  const words = new Map<string, ReferenceWord[]>();
  let page = -1;
  for (const match of html.matchAll(
    /<page |<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)<\/word>/g,
  )) {
    if (match[0] === '<page ') {
      page++;
      continue;
    }
    const [x0, y0, x1, y1] = match.slice(1, 5).map(Number) as [number, number, number, number];
    const text = match[5] ?? '';
    const core = text.replace(/^[^\p{L}]+|[^\p{L}]+$/gu, '');
    // Each run of letters is a word ("encoder-decoder" holds two); its edges are the box's only
    // where the word is letters alone.
    for (const letters of text.matchAll(/\p{L}{3,}/gu)) {
      const key = `${String(page)}:${letters[0]}`;
      const box = { page, x: x0, y: y0, width: x1 - x0, height: y1 - y0 };
      words.set(key, [
        ...(words.get(key) ?? []),
        { box, clean: letters[0] === text && core === text },
      ]);
    }
  }
  return words;
}

const overlap = (a: HighlightBox, b: HighlightBox) =>
  Math.min(a.x + a.width, b.x + b.width) > Math.max(a.x, b.x) &&
  Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y) >=
    0.5 * Math.min(a.height, b.height);

/** The left and right edges within `pt` (the boxes already share a line). */
const edgesWithin = (ours: HighlightBox, reference: HighlightBox, pt: number) =>
  Math.abs(ours.x - reference.x) <= pt &&
  Math.abs(ours.x + ours.width - (reference.x + reference.width)) <= pt;

interface Agreement {
  /** Words poppler also has on that page (the same letters). */
  known: number;
  /** Of those, the ones whose box overlaps none of poppler's boxes of that word on the page. */
  unplaced: number;
  /** Of those, the ones whose box overlaps poppler's same word, and is letters alone there. */
  compared: number;
  agreeing: number;
}

async function agreement(
  engine: ExtractEngine,
  file: string,
  reference: Map<string, ReferenceWord[]>,
): Promise<Agreement> {
  const result = { known: 0, unplaced: 0, compared: 0, agreeing: 0 };
  for (const word of await engineWords(file, engine)) {
    const candidates = reference.get(`${String(word.page)}:${word.text}`);
    if (!candidates) continue; // a word poppler reads otherwise: not the same word
    result.known++;
    const same = candidates.find((candidate) => overlap(word.box, candidate.box));
    if (!same) result.unplaced++;
    if (!same?.clean) continue;
    result.compared++;
    if (edgesWithin(word.box, same.box, 2)) result.agreeing++;
  }
  return result;
}

describe("PDFium's word boxes", () => {
  it("put >= 99% of the words within 2 pt of poppler's boxes on the 20 papers", async () => {
    const empty = (): Agreement => ({ known: 0, unplaced: 0, compared: 0, agreeing: 0 });
    const totals = { pdfium: empty(), 'pdf.js': empty() };
    const lines: string[] = [];
    for (const name of papers) {
      const file = join(papersDir, name);
      const reference = popplerWords(file);
      const figures: string[] = [];
      for (const engine of ['pdfium', 'pdf.js'] as const) {
        const paper = await agreement(engine, file, reference);
        for (const key of ['known', 'unplaced', 'compared', 'agreeing'] as const)
          totals[engine][key] += paper[key];
        figures.push(
          `${engine} ${((100 * paper.agreeing) / paper.compared).toFixed(2)}% of ${String(paper.compared)}`,
        );
      }
      lines.push(`${name}: ${figures.join(', ')}`);
    }
    const share = (engine: 'pdfium' | 'pdf.js') =>
      totals[engine].agreeing / totals[engine].compared;
    lines.push(
      `all: pdfium ${(100 * share('pdfium')).toFixed(2)}%, pdf.js ${(100 * share('pdf.js')).toFixed(2)}%`,
    );
    lines.push(
      `pdfium: ${String(totals.pdfium.unplaced)} of ${String(totals.pdfium.known)} words overlap no box of poppler's for them`,
    );
    console.log(lines.join('\n'));
    // A box far off would overlap no box of its word and show here, not pass unseen.
    expect(totals.pdfium.unplaced).toBeLessThan(0.01 * totals.pdfium.known);
    expect(totals.pdfium.compared).toBeGreaterThan(100_000);
    expect(share('pdfium')).toBeGreaterThanOrEqual(0.99);
  }, 180_000);
});
