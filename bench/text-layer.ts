// Where three readings put the words of the 20 shared papers, every page: PDFium's word boxes (what
// the reader's highlights are drawn from), pdf.js' text layer as Chromium lays it out (the reader's
// selectable text), and poppler's glyph boxes (`pdftotext -bbox`, where the PDF draws each word).
// Each figure is the share of words whose left and right edges are both within 2 pt of the other
// reading's. `ideal_layer_on_poppler_within_2pt_pct` estimates the best a layer laid out as pdf.js
// lays it out could do: pdf.js' own spans, the glyphs at their true widths and the font's space,
// stretched to the span. A better font can only get the glyph widths right, which this already has;
// the spaces of a justified line are each stretched by the line's own amount, which a span's text
// does not carry.
// Usage: node bench/text-layer.ts   (Debian's Chromium, poppler-utils)
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launchBrowser } from '../e2e/harness.ts';
import { agreement, isWord, popplerTokens, type Agreement, type Box } from '../e2e/word-boxes.ts';
import { highlightBoxes } from '../app/papers/highlight.ts';
import { PaperLibrary } from '../app/papers/index.ts';
import { openWorkspace } from '../app/store/index.ts';

type Pages = Box[][];

const papersDir = new URL('../../shared/data/papers/', import.meta.url).pathname;
const pdfjsDir = new URL('../node_modules/pdfjs-dist/build/', import.meta.url).pathname;
const layerCss = readFileSync(
  new URL('../renderer/src/views/papers/pdf/text-layer.css', import.meta.url),
  'utf8',
);
const files = readdirSync(papersDir).filter((name) => name.endsWith('.pdf'));
const word = /\p{L}{3,}/gu;
/** The reader's default zoom (the text layer quantizes font sizes by the scale). */
const scale = 1.5;

/** PDFium's words of each page, from the stored layout (as the reader's highlights are made). */
async function pdfiumWords(): Promise<Map<string, Pages>> {
  const dir = mkdtempSync(join(tmpdir(), 'rlm-text-layer-'));
  const workspace = openWorkspace(dir);
  const library = new PaperLibrary(workspace.db);
  const result = new Map<string, Pages>();
  try {
    const imported = await library.importPaths(
      'papers',
      files.map((name) => join(papersDir, name)),
    );
    for (const outcome of imported) {
      if (outcome.outcome !== 'added' || !outcome.paperId)
        throw new Error(`${outcome.input}: not added`);
      const paper = library.paper('papers', outcome.paperId);
      const { runs } = library.store.layout('papers', outcome.paperId);
      const pages: Pages = [];
      paper.pageStarts.forEach((from, index) => {
        const to = paper.pageStarts[index + 1] ?? paper.fullText.length;
        const words: Box[] = [];
        for (const match of paper.fullText.slice(from, to).matchAll(word)) {
          const start = from + match.index;
          const boxes = highlightBoxes(runs, start, start + match[0].length);
          const [box] = boxes;
          if (boxes.length === 1 && box) words.push({ ...box, text: match[0] });
        }
        pages.push(words);
      });
      result.set(outcome.input.split('/').at(-1) ?? outcome.input, pages);
    }
  } finally {
    await library.dispose();
    workspace.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return result;
}

/**
 * The best a layer made as pdf.js makes it could do: the text layer's own spans (pdf.js' items,
 * placed exactly), each holding poppler's tokens at their true glyph widths with the font's own
 * space (a quarter of an em) between them, stretched to the span's width as pdf.js stretches it.
 * Only the width of the spaces is left to the layout, and no font can know it: a justified line
 * stretches each of its spaces by its own amount.
 */
function idealLayer(spans: Box[], tokens: Box[]): Box[] {
  const laid: Box[] = [];
  for (const span of spans) {
    const inside = tokens
      .filter((token) => {
        const middleX = token.x + token.width / 2;
        const middleY = token.y + token.height / 2;
        return (
          middleX > span.x &&
          middleX < span.x + span.width &&
          middleY > span.y &&
          middleY < span.y + span.height
        );
      })
      .sort((first, second) => first.x - second.x);
    if (inside.length === 0) continue;
    const space = 0.25 * 0.85 * Math.max(...inside.map((token) => token.height));
    const natural =
      inside.reduce((sum, token) => sum + token.width, 0) + (inside.length - 1) * space;
    const stretch = span.width / natural;
    let before = 0;
    inside.forEach((token, index) => {
      const x = span.x + stretch * (before + index * space);
      before += token.width;
      if (isWord(token.text))
        laid.push({ ...token, x, width: span.x + stretch * (before + index * space) - x });
    });
  }
  return laid;
}

/** In the page: one PDF's text layer, page by page, as the reader draws it, its words in points. */
const readLayer = `
import * as pdfjs from '/pdfjs/pdf.mjs';
pdfjs.GlobalWorkerOptions.workerSrc = '/pdfjs/pdf.worker.mjs';
globalThis.readLayer = async (url, scale) => {
  const pdf = await pdfjs.getDocument({ url }).promise;
  const pages = [];
  for (let number = 1; number <= pdf.numPages; number++) {
    const pdfPage = await pdf.getPage(number);
    const viewport = pdfPage.getViewport({ scale });
    const frame = document.createElement('div');
    frame.className = 'pdf-page';
    frame.style.cssText = 'position:relative;width:' + viewport.width + 'px;height:' + viewport.height + 'px';
    frame.style.setProperty('--total-scale-factor', String(scale));
    frame.style.setProperty('--scale-round-x', '1px');
    frame.style.setProperty('--scale-round-y', '1px');
    const layer = document.createElement('div');
    layer.className = 'textLayer';
    frame.append(layer);
    document.body.replaceChildren(frame);
    await new pdfjs.TextLayer({ textContentSource: pdfPage.streamTextContent(), container: layer, viewport }).render();
    const corner = frame.getBoundingClientRect();
    const inPoints = (box, text) => ({ text, x: (box.left - corner.left) / scale, y: (box.top - corner.top) / scale,
      width: box.width / scale, height: box.height / scale });
    const words = [];
    const spans = [];
    for (const span of layer.querySelectorAll('span')) {
      const node = span.firstChild;
      if (node?.nodeType !== Node.TEXT_NODE) continue;
      spans.push(inPoints(span.getBoundingClientRect(), node.textContent));
      for (const match of node.textContent.matchAll(/\\p{L}{3,}/gu)) {
        const range = document.createRange();
        range.setStart(node, match.index);
        range.setEnd(node, match.index + match[0].length);
        words.push(inPoints(range.getBoundingClientRect(), match[0]));
      }
    }
    pages.push({ words, spans });
    pdfPage.cleanup();
  }
  await pdf.loadingTask.destroy();
  return pages;
};
`;

/** pdf.js' text layer of every page of every paper, word by word, in PDF points. */
interface LayerPage {
  words: Box[];
  spans: Box[];
}

async function textLayerWords(): Promise<Map<string, LayerPage[]>> {
  const server = createServer((request, response) => {
    const path = decodeURIComponent(new URL(request.url ?? '/', 'http://x').pathname);
    try {
      if (path === '/') {
        response.setHeader('content-type', 'text/html');
        response.end(
          `<!doctype html><style>${layerCss}</style><body></body><script type="module">${readLayer}</script>`,
        );
      } else if (path.startsWith('/pdfjs/')) {
        response.setHeader('content-type', 'text/javascript');
        response.end(readFileSync(join(pdfjsDir, path.slice('/pdfjs/'.length))));
      } else {
        response.end(readFileSync(join(papersDir, path.slice('/papers/'.length))));
      }
    } catch {
      response.statusCode = 404;
      response.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
  const session = await launchBrowser();
  const result = new Map<string, LayerPage[]>();
  try {
    const page = await session.context.newPage();
    await page.goto(`${origin}/`);
    await page.waitForFunction(() => 'readLayer' in globalThis);
    for (const file of files) {
      const pages = await page.evaluate<LayerPage[], { url: string; scale: number }>(
        ({ url, scale }) =>
          (
            globalThis as unknown as {
              readLayer: (url: string, scale: number) => Promise<LayerPage[]>;
            }
          ).readLayer(url, scale),
        { url: `/papers/${encodeURIComponent(file)}`, scale },
      );
      result.set(file, pages);
    }
  } finally {
    await session.close();
    server.close();
  }
  return result;
}

/** Adds one paper's agreement to the running total, and returns it. */
function agreeing(ours: Pages, reference: Pages, sum: Agreement): Agreement {
  const result = agreement(ours.map((page, index) => [page, reference[index] ?? []] as const));
  sum.words += result.words;
  sum.found += result.found;
  sum.within += result.within;
  return result;
}

const pct = (part: number, whole: number) => Math.round((10_000 * part) / whole) / 100;
const started = performance.now();
const pdfium = await pdfiumWords();
const layer = await textLayerWords();
const totals = {
  pdfiumOnLayer: { words: 0, found: 0, within: 0 },
  pdfiumOnPoppler: { words: 0, found: 0, within: 0 },
  layerOnPoppler: { words: 0, found: 0, within: 0 },
  idealOnPoppler: { words: 0, found: 0, within: 0 },
};
let worstOnLayer = 100;
for (const file of files) {
  const tokens = popplerTokens(join(papersDir, file));
  const popplerWords = tokens.map((page) => page.filter((box) => isWord(box.text)));
  const ours = pdfium.get(file) ?? [];
  const layerReading = layer.get(file) ?? [];
  const layerPages = layerReading.map((page) => page.words);
  const onLayer = agreeing(ours, layerPages, totals.pdfiumOnLayer);
  const onGlyphs = agreeing(ours, popplerWords, totals.pdfiumOnPoppler);
  const layerOnGlyphs = agreeing(layerPages, popplerWords, totals.layerOnPoppler);
  const ideal = agreeing(
    layerReading.map((page, index) => idealLayer(page.spans, tokens[index] ?? [])),
    popplerWords,
    totals.idealOnPoppler,
  );
  worstOnLayer = Math.min(worstOnLayer, pct(onLayer.within, onLayer.found));
  console.log(
    `${file.slice(0, 44).padEnd(44)} PDFium on layer ${String(pct(onLayer.within, onLayer.found)).padStart(6)}% ` +
      `(${String(onLayer.found)}/${String(onLayer.words)} found)  PDFium on glyphs ${String(pct(onGlyphs.within, onGlyphs.found)).padStart(6)}%  ` +
      `layer on glyphs ${String(pct(layerOnGlyphs.within, layerOnGlyphs.found)).padStart(6)}%  ideal layer ${String(pct(ideal.within, ideal.found)).padStart(6)}%`,
  );
}
const { pdfiumOnLayer, pdfiumOnPoppler, layerOnPoppler, idealOnPoppler } = totals;
console.log(
  JSON.stringify({
    papers: files.length,
    scale,
    pdfium_words_compared: pdfiumOnLayer.words,
    pdfium_on_layer_found_pct: pct(pdfiumOnLayer.found, pdfiumOnLayer.words),
    pdfium_on_layer_within_2pt_pct: pct(pdfiumOnLayer.within, pdfiumOnLayer.found),
    pdfium_on_layer_within_2pt_min_paper_pct: worstOnLayer,
    pdfium_on_poppler_within_2pt_pct: pct(pdfiumOnPoppler.within, pdfiumOnPoppler.found),
    layer_on_poppler_within_2pt_pct: pct(layerOnPoppler.within, layerOnPoppler.found),
    ideal_layer_on_poppler_within_2pt_pct: pct(idealOnPoppler.within, idealOnPoppler.found),
    wall_s: Math.round((performance.now() - started) / 1000),
  }),
);
