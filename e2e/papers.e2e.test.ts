// The Papers view in Chromium against the real `rlm-studio serve` on a fresh workspace: import two
// CC-BY PDFs and a non-PDF through the file input, read a paper beside its PDF, highlight a span of
// its text on the right PDF page (by selection and by ?hl= link), search the set, open the map (by
// TF-IDF, then by sentence embeddings once a local model, written by the test, is set in Settings).
import { mkdtempSync, readFileSync, rmSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeTinyModel } from '../app/papers/embed/fixtures/tiny-model.ts';
import { PaperLibrary } from '../app/papers/index.ts';
import { openWorkspace } from '../app/store/index.ts';
import { screenshot, openApp, type OpenedApp } from './harness.ts';
import { agreement, isWord, popplerTokens, type Agreement, type Box } from './word-boxes.ts';

/** A shared paper as a file to set on the input (playwright takes paths or buffers, not both). */
const sharedPaper = (name: string) => ({
  name,
  mimeType: 'application/pdf',
  buffer: readFileSync(new URL(`../../shared/data/papers/${name}`, import.meta.url)),
});
const s2orc = sharedPaper('2020.acl-main.447_arXiv-1911.02782_S2ORC.pdf');
const papermage = sharedPaper('papermage_2023.emnlp-demo.45.pdf');
const set = 'e2e papers';

let opened: OpenedApp;
let page: Page;
let pageErrors: string[] = [];

beforeAll(async () => {
  opened = await openApp();
  ({ page, pageErrors } = opened);
});
afterAll(async () => {
  await opened.close();
});

/** Moves within the app without reloading (the hash router listens to hash changes). */
async function goToHash(hash: string): Promise<void> {
  await page.evaluate((target) => {
    window.location.hash = target;
  }, hash);
}

/** A span of the text panel's block for `pageIndex`: its offsets in fullText and its text. */
async function spanOnPage(pageIndex: number, from: number, length: number) {
  return page.getByTestId('paper-text').evaluate(
    (pre, [pageIndex, from, length]) => {
      const blocks = [...pre.children];
      const before = blocks
        .slice(0, pageIndex)
        .reduce((sum, block) => sum + block.textContent.length, 0);
      const text = blocks[pageIndex]?.textContent ?? '';
      return {
        start: before + from,
        end: before + from + length,
        text: text.slice(from, from + length),
      };
    },
    [pageIndex, from, length] as const,
  );
}

/** Whether the element is at least partly inside the PDF scroller's visible area. */
async function inPdfView(selector: string): Promise<boolean> {
  return page.getByTestId('pdf-view').evaluate((scroller, target) => {
    const element = scroller.querySelector(target);
    if (!element) return false;
    const box = element.getBoundingClientRect();
    const view = scroller.getBoundingClientRect();
    return box.bottom > view.top && box.top < view.bottom;
  }, selector);
}

/** Waits until the PDF page under the first highlight box is drawn (for a faithful screenshot). */
async function drawnUnderHighlight(): Promise<void> {
  const pageIndex = await page.getByTestId('pdf-highlight').first().getAttribute('data-page');
  await page
    .locator(`[data-testid="pdf-page"][data-page="${pageIndex ?? ''}"][data-drawn="true"]`)
    .waitFor();
}

const s2orcPath = new URL(
  '../../shared/data/papers/2020.acl-main.447_arXiv-1911.02782_S2ORC.pdf',
  import.meta.url,
).pathname;

/** The reader's text layer of a page, word by word (three letters or more), in PDF points. */
async function textLayerWords(pageIndex: number): Promise<Box[]> {
  const frame = page.locator(`[data-testid="pdf-page"][data-page="${String(pageIndex)}"]`);
  await frame.scrollIntoViewIfNeeded();
  await page
    .locator(`[data-testid="pdf-page"][data-page="${String(pageIndex)}"][data-drawn="true"]`)
    .waitFor();
  await expect.poll(() => frame.locator('.textLayer span').count()).toBeGreaterThan(20);
  return frame.evaluate((element) => {
    const scale = Number((element as HTMLElement).style.getPropertyValue('--total-scale-factor'));
    const corner = element.getBoundingClientRect();
    const words: Box[] = [];
    for (const span of element.querySelectorAll('.textLayer span')) {
      const node = span.firstChild;
      if (node?.nodeType !== Node.TEXT_NODE) continue;
      for (const match of (node.textContent ?? '').matchAll(/\p{L}{3,}/gu)) {
        const range = document.createRange();
        range.setStart(node, match.index);
        range.setEnd(node, match.index + match[0].length);
        const box = range.getBoundingClientRect();
        words.push({
          text: match[0],
          x: (box.left - corner.left) / scale,
          y: (box.top - corner.top) / scale,
          width: box.width / scale,
          height: box.height / scale,
        });
      }
    }
    return words;
  });
}

/** Poppler's words of letters alone on a page (pdftotext -bbox). */
const popplerWords = (file: string, pageIndex: number): Box[] =>
  (popplerTokens(file, pageIndex)[0] ?? []).filter((box) => isWord(box.text));

const describeAgreement = ({ words, found, within }: Agreement) =>
  `${String(found)} of ${String(words)} on their word, ${((100 * within) / found).toFixed(1)}% of those within 2 pt`;

describe('papers view', () => {
  it('imports two PDFs and a non-PDF through the file input, with progress and outcomes', async () => {
    await page.getByTestId('view-papers').waitFor();
    await page.getByTestId('no-sets').waitFor();
    await page.getByTestId('new-set-name').fill(set);
    await page.getByTestId('import-input').setInputFiles([
      s2orc,
      papermage,
      {
        name: 'notes.txt',
        mimeType: 'text/plain',
        buffer: Buffer.from('Reading notes, not a paper.'),
      },
    ]);
    const progress = page.getByTestId('import-progress');
    await progress.waitFor();
    expect(await progress.getAttribute('role')).toBe('progressbar');
    await page.locator('[data-testid="import-progress"][data-state="finished"]').waitFor({
      timeout: 60_000,
    });
    expect(await progress.getAttribute('aria-valuenow')).toBe('3');
    expect(await progress.getAttribute('aria-valuemax')).toBe('3');

    const results = page.getByTestId('import-result');
    expect(await results.count()).toBe(3);
    expect(await page.locator('[data-testid="import-result"][data-outcome="added"]').count()).toBe(
      2,
    );
    const failed = page.locator('[data-testid="import-result"][data-outcome="failed"]');
    expect(await failed.textContent()).toMatch(/notes\.txt.*NotAPdfError.*is not a PDF/);

    // The new set opens, listed with its counts, and its papers (and the failure) show.
    await page.locator(`[data-testid="paper-set"][data-set="${set}"]`).waitFor();
    expect(
      await page.locator(`[data-testid="paper-set"][data-set="${set}"]`).textContent(),
    ).toContain('2 papers');
    await expect.poll(() => page.getByTestId('paper-row').count()).toBe(2);
    expect(await page.getByTestId('paper-failure').textContent()).toContain('NotAPdfError');
    await screenshot(page, 'papers-imported');
  });

  it('imports files dropped on the view into the selected set', async () => {
    const view = page.getByTestId('view-papers');
    await view.evaluate((element) => {
      const data = new DataTransfer();
      data.items.add(new File([], 'empty.pdf', { type: 'application/pdf' }));
      (window as unknown as { e2eDrop: DataTransfer }).e2eDrop = data;
      element.dispatchEvent(new DragEvent('dragenter', { dataTransfer: data, bubbles: true }));
      element.dispatchEvent(new DragEvent('dragover', { dataTransfer: data, bubbles: true }));
    });
    expect(await view.textContent()).toContain(`Drop to add to ${set}`);
    await screenshot(page, 'papers-drop');
    await view.evaluate((element) => {
      const data = (window as unknown as { e2eDrop: DataTransfer }).e2eDrop;
      element.dispatchEvent(new DragEvent('drop', { dataTransfer: data, bubbles: true }));
    });
    const result = page.locator('[data-testid="import-result"][data-outcome="failed"]');
    await expect.poll(() => result.textContent()).toMatch(/empty\.pdf.*EmptyFileError/);
    expect(await page.getByTestId('import-result').count()).toBe(1);
    expect(await view.textContent()).not.toContain('Drop to add to');
  });

  it('opens the S2ORC paper: its text and sections beside the drawn PDF with a text layer', async () => {
    await page.getByTestId('paper-row').filter({ hasText: 'S2ORC' }).click();
    await page.getByTestId('paper-reader').waitFor();
    expect(new URL(page.url()).hash).toContain('paper=1911.02782');
    expect(await page.getByTestId('paper-title').textContent()).toContain('S2ORC');
    await page.locator('[data-testid="pdf-page"][data-drawn="true"]').first().waitFor();
    await expect
      .poll(() => page.locator('[data-testid="pdf-page"] .textLayer span').count())
      .toBeGreaterThan(20);
    expect(await page.getByTestId('pdf-page').count()).toBe(15);
    expect(await page.getByTestId('paper-section').count()).toBeGreaterThan(5);
    expect(await page.getByTestId('paper-text').textContent()).toContain('S2ORC');
    await screenshot(page, 'papers-reader');
  });

  it("lands PDFium's word boxes on the words of pdf.js' text layer (first 3 pages)", async () => {
    expect(await page.getByTestId('paper-meta').textContent()).toContain('read by PDFium');
    // Three readings of each word of the first three pages, in PDF points from the page's corner:
    // the reader's text layer (pdf.js' spans, laid out by the browser), PDFium's highlight boxes
    // (from the served workspace, read beside the app) and poppler's (pdftotext -bbox, the
    // reference for where the glyphs are drawn).
    const workspace = openWorkspace(opened.app.workspace);
    const library = new PaperLibrary(workspace.db);
    const readings: { layer: Box[]; pdfium: Box[]; poppler: Box[] }[] = [];
    try {
      const paper = library.paper(set, '1911.02782');
      for (const pageIndex of [0, 1, 2]) {
        const from = paper.pageStarts[pageIndex] ?? 0;
        const to = paper.pageStarts[pageIndex + 1] ?? paper.fullText.length;
        const pdfium: Box[] = [];
        for (const match of paper.fullText.slice(from, to).matchAll(/\p{L}{3,}/gu)) {
          const start = from + match.index;
          const { boxes } = library.highlight(set, '1911.02782', start, start + match[0].length);
          const [box] = boxes;
          if (boxes.length === 1 && box) pdfium.push({ ...box, text: match[0] });
        }
        readings.push({
          layer: await textLayerWords(pageIndex),
          pdfium,
          poppler: popplerWords(s2orcPath, pageIndex),
        });
      }
    } finally {
      workspace.close();
    }
    const figure = (ours: 'layer' | 'pdfium', reference: 'layer' | 'poppler') =>
      agreement(readings.map((reading) => [reading[ours], reading[reference]]));
    const onLayer = figure('pdfium', 'layer');
    const onGlyphs = figure('pdfium', 'poppler');
    const layerOnGlyphs = figure('layer', 'poppler');
    console.log(
      `PDFium on the text layer: ${describeAgreement(onLayer)}; PDFium on poppler: ${describeAgreement(onGlyphs)}; text layer on poppler: ${describeAgreement(layerOnGlyphs)}`,
    );
    // Every PDFium word lands on its word in the text layer (the same line, overlapping it) ...
    expect(onLayer.found / onLayer.words).toBeGreaterThanOrEqual(0.99);
    expect(onLayer.words).toBeGreaterThan(1500);
    // ... and within 2 pt of where the PDF draws it. Within a span the text layer places words
    // by the browser's fallback font, so its own words are no closer to the glyphs than this.
    expect(onGlyphs.within / onGlyphs.found).toBeGreaterThanOrEqual(0.99);
    expect(layerOnGlyphs.within / layerOnGlyphs.found).toBeLessThan(
      onGlyphs.within / onGlyphs.found,
    );
  });

  it('highlights a span selected in the text on the PDF page that holds it', async () => {
    const span = await spanOnPage(2, 400, 160);
    await page.getByTestId('paper-text').evaluate(
      (pre, { pageIndex, from, to }) => {
        const node = pre.children[pageIndex]?.firstChild;
        if (!node) throw new Error('no text on that page');
        const range = document.createRange();
        range.setStart(node, from);
        range.setEnd(node, to);
        const selection = document.getSelection();
        selection?.removeAllRanges();
        selection?.addRange(range);
      },
      { pageIndex: 2, from: 400, to: 560 },
    );
    const boxes = page.getByTestId('pdf-highlight');
    await boxes.first().waitFor();
    const pages = await boxes.evaluateAll((all) => all.map((box) => box.getAttribute('data-page')));
    expect(new Set(pages)).toEqual(new Set(['2']));
    await expect.poll(() => inPdfView('[data-testid="pdf-highlight"]')).toBe(true);
    expect(await page.getByTestId('paper-focus').textContent()).toContain(
      `${span.start.toLocaleString('en-US')}–${span.end.toLocaleString('en-US')}`,
    );
    await screenshot(page, 'papers-highlight-selection');
  });

  it('opens a ?hl= link with the span highlighted on its page and scrolled into view', async () => {
    const span = await spanOnPage(6, 300, 220);
    expect(span.text.trim().length).toBeGreaterThan(100);
    await goToHash(
      `#/papers?set=${encodeURIComponent(set)}&paper=1911.02782&hl=${String(span.start)}-${String(span.end)}`,
    );
    await page.locator('[data-testid="pdf-highlight"][data-page="6"]').first().waitFor();
    const pages = await page
      .getByTestId('pdf-highlight')
      .evaluateAll((all) => all.map((box) => box.getAttribute('data-page')));
    expect(new Set(pages)).toEqual(new Set(['6']));
    await expect.poll(() => inPdfView('[data-testid="pdf-highlight"]')).toBe(true);
    await page.locator('[data-testid="pdf-page"][data-page="6"][data-drawn="true"]').waitFor();
    expect(await page.getByTestId('paper-focus').textContent()).toContain('on page 7');
    await screenshot(page, 'papers-highlight');
  });

  it('keeps the text and the PDF in step when either is scrolled', async () => {
    await page.getByTestId('pdf-view').hover();
    await page.mouse.wheel(0, -100_000);
    await page.getByTestId('paper-text-panel').hover();
    const textTopPage = async () =>
      page.getByTestId('paper-text-panel').evaluate((scroller) => {
        const blocks = [...scroller.querySelectorAll<HTMLElement>('.paper-text-page')];
        return blocks.filter((block) => block.offsetTop <= scroller.scrollTop + 1).length - 1;
      });
    const pdfTopPage = async () =>
      page.getByTestId('pdf-view').evaluate((scroller) => {
        const frames = [...scroller.querySelectorAll<HTMLElement>('[data-testid="pdf-page"]')];
        const y = scroller.scrollTop + scroller.clientHeight / 4;
        return frames.filter((frame) => frame.offsetTop <= y).length - 1;
      });
    // Scroll the text down to page 4 or so: the PDF follows to the same page.
    await page.getByTestId('paper-text-panel').hover();
    await page.mouse.wheel(0, 4000);
    await expect.poll(textTopPage).toBeGreaterThan(0);
    await expect.poll(async () => (await pdfTopPage()) === (await textTopPage())).toBe(true);
    // Scroll the PDF: the text follows to the start of the PDF's page.
    await page.getByTestId('pdf-view').hover();
    await page.mouse.wheel(0, 5000);
    // One poll for both: the panels were already in step before the wheel's scroll lands (CI once
    // read them there and failed on "past page 2").
    await expect
      .poll(async () => {
        const pdf = await pdfTopPage();
        return pdf > 1 && pdf === (await textTopPage());
      })
      .toBe(true);
    // A section in the outline moves both panels to it (appendix C starts on page 13).
    await page.getByTestId('paper-section').filter({ hasText: 'C The paper clustering' }).click();
    await expect.poll(pdfTopPage).toBe(12);
    expect(await textTopPage()).toBeGreaterThanOrEqual(11);
  });

  it('searches the set and opens a hit at its passage, highlighted', async () => {
    await page.getByTestId('reader-back').click();
    await page.getByTestId('set-tab-search').click();
    await page.getByTestId('paper-search').fill('citation graph');
    await page.getByTestId('search-hit').first().waitFor();
    expect(await page.getByTestId('search-hit').count()).toBeGreaterThan(1);
    await screenshot(page, 'papers-search');
    await page.getByTestId('search-hit').first().click();
    await page.getByTestId('paper-reader').waitFor();
    expect(new URL(page.url()).hash).toMatch(/hl=\d+-\d+/);
    await page.getByTestId('pdf-highlight').first().waitFor();
    await expect.poll(() => inPdfView('[data-testid="pdf-highlight"]')).toBe(true);
    await drawnUnderHighlight();
    await screenshot(page, 'papers-search-hit');
    // Back returns to the hits, query kept.
    await page.goBack();
    await page.getByTestId('search-hit').first().waitFor();
    expect(await page.getByTestId('paper-search').inputValue()).toBe('citation graph');
  });

  it('maps the passages by paper, shows a passage on hover and opens it on click', async () => {
    await page.getByTestId('set-tab-map').click();
    await page.getByTestId('paper-map').waitFor();
    const points = page.getByTestId('map-point');
    await expect.poll(() => points.count()).toBeGreaterThan(10);
    const papers = await points.evaluateAll(
      (all) => new Set(all.map((point) => point.getAttribute('data-paper'))).size,
    );
    expect(papers).toBe(2);
    // Points may overlap: take the first one that nothing covers, so the pointer reaches it.
    const uncovered = await points.evaluateAll((all) =>
      all.findIndex((point) => {
        const box = point.getBoundingClientRect();
        return document.elementFromPoint(box.x + box.width / 2, box.y + box.height / 2) === point;
      }),
    );
    expect(uncovered).toBeGreaterThanOrEqual(0);
    const point = points.nth(uncovered);
    await point.hover();
    await expect
      .poll(() => page.getByTestId('map-preview').textContent())
      .not.toContain('Hover a point');
    await screenshot(page, 'papers-map');
    await point.click();
    await page.getByTestId('paper-reader').waitFor();
    await page.getByTestId('pdf-highlight').first().waitFor();
    await drawnUnderHighlight();
    await screenshot(page, 'papers-map-passage');
  });

  it('draws the map from sentence embeddings once a local model is set in Settings', async () => {
    const models = mkdtempSync(join(tmpdir(), 'rlm-e2e-models-'));
    try {
      const broken = writeTinyModel(join(models, 'broken-model'));
      unlinkSync(join(broken, 'tokenizer.json'));
      const model = writeTinyModel(join(models, 'tiny-model'));
      await page.getByTestId('nav-settings').click();
      const folder = page.getByTestId('embedding-folder');
      await expect.poll(() => folder.isEnabled()).toBe(true);
      await folder.fill(broken);
      await page.getByTestId('embedding-save').click();
      await expect
        .poll(() => page.getByTestId('embedding-settings-failure').textContent())
        .toContain("EmbeddingModelFolderError: '" + broken);
      await folder.fill(model);
      await page.getByTestId('embedding-save').click();
      // Saving asks the embedding process whether transformers.js knows the model type.
      await expect
        .poll(() => page.getByTestId('embedding-saved').textContent(), { timeout: 30_000 })
        .toContain(`the map embeds with ${model}`);

      await goToHash(`#/papers?set=${encodeURIComponent(set)}&tab=map`);
      const method = page.getByTestId('map-method');
      await expect
        .poll(() => method.textContent(), { timeout: 60_000 })
        .toContain('embeddings-pca, tiny-model');
      expect(await page.getByTestId('map-fallback').count()).toBe(0);
      await expect.poll(() => page.getByTestId('map-point').count()).toBeGreaterThan(10);
      await screenshot(page, 'papers-map-embeddings');
      await page.getByTestId('map-method-tfidf-pca').click();
      await expect.poll(() => method.textContent(), { timeout: 30_000 }).toContain('(tfidf-pca)');
      await page.getByTestId('map-method-embeddings-pca').click();
      await expect
        .poll(() => method.textContent(), { timeout: 30_000 })
        .toContain('embeddings-pca, tiny-model');
    } finally {
      rmSync(models, { recursive: true, force: true });
    }
  });

  it('shows a QASPER paper as text only, saying there is no PDF', async () => {
    await page.getByTestId('nav-papers').click();
    await page.getByTestId('new-set-name').fill('e2e qasper');
    await page.getByTestId('import-input').setInputFiles({
      name: 'qasper_test_v0.3_subset_papers_with_pdf.json',
      mimeType: 'application/json',
      buffer: readFileSync(
        new URL(
          '../../shared/data/qasper/qasper_test_v0.3_subset_papers_with_pdf.json',
          import.meta.url,
        ),
      ),
    });
    await page.locator('[data-testid="set-view"][data-set="e2e qasper"]').waitFor({
      timeout: 60_000,
    });
    await expect.poll(() => page.getByTestId('paper-row').count()).toBe(2);
    await page.getByTestId('paper-row').first().click();
    await page.getByTestId('paper-no-pdf').waitFor();
    expect(await page.getByTestId('pdf-view').count()).toBe(0);
    expect((await page.getByTestId('paper-text').textContent())?.length).toBeGreaterThan(1000);
    await screenshot(page, 'papers-qasper');
  });

  it('reads calmly in the dark theme too', async () => {
    await page.getByTestId('theme-toggle').click();
    await expect
      .poll(() => page.evaluate(() => document.documentElement.dataset.theme))
      .toBe('dark');
    await page.goBack();
    await page.getByTestId('set-view').waitFor();
    await screenshot(page, 'papers-set-dark');
    await goToHash(`#/papers?set=${encodeURIComponent(set)}&paper=1911.02782&hl=1200-1500`);
    await page.getByTestId('pdf-highlight').first().waitFor();
    await drawnUnderHighlight();
    await screenshot(page, 'papers-reader-dark');
  });

  it('logged no page errors', () => {
    expect(pageErrors).toEqual([]);
  });
});
