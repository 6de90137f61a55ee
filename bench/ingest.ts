// `npm run bench:ingest`: paper ingestion against pdftotext on the 20 shared papers, both engines
// (PDFium, which ingests; pdf.js, which read papers before) side by side in one run.
// Prints per-paper coverage, sections and titles per engine, then one JSON line of figures.
// Figures (issue 26, PDFium): cold ingest of the 20 <= 1.0x pdftotext; 160 papers (the 20 eight
// times, a byte changed) <= 0.6x pdftotext run one after another; coverage >= 99% of pdftotext's
// normalised words on every paper; titles 20 of 20; no paper with fewer sections than pdf.js.
// 1,000 papers (bench-made copies): ingest with progress, reopen < 200 ms, keyword search p50
// < 5 ms, the map drawn in < 3 s. Also: the same ingest on a warm pool, reopening, keyword search.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PaperLibrary, SetSearch, type ExtractEngine } from '../app/papers/index.ts';
import { benchKeywordSearch } from '../app/papers/search/index.ts';
import { openWorkspace } from '../app/store/index.ts';

const papersDir = new URL('../../shared/data/papers/', import.meta.url).pathname;

/** The titles as printed on each paper's first page (checked by hand). */
const expectedTitles: Record<string, string> = {
  '1602.03483': 'Learning Distributed Representations of Sentences from Unlabelled Data',
  '1606.05250': 'SQuAD: 100,000+ Questions for Machine Comprehension of Text',
  '1611.01603': 'BI-DIRECTIONAL ATTENTION FLOW FOR MACHINE COMPREHENSION',
  '1704.00051': 'Reading Wikipedia to Answer Open-Domain Questions',
  '1706.03762': 'Attention Is All You Need',
  '1802.05365': 'Deep contextualized word representations',
  '1803.02155': 'Self-Attention with Relative Position Representations',
  '1810.04805': 'BERT: Pre-training of Deep Bidirectional Transformers for Language Understanding',
  '1902.01718': 'End-to-End Open-Domain Question Answering with BERTserini',
  '1906.08237': 'XLNet: Generalized Autoregressive Pretraining for Language Understanding',
  '1910.10683': 'Exploring the Limits of Transfer Learning with a Unified Text-to-Text Transformer',
  '2002.08910': 'How Much Knowledge Can You Pack Into the Parameters of a Language Model?',
  '1911.02782': 'S2ORC: The Semantic Scholar Open Research Corpus',
  '2301.13298':
    'LONGEVAL: Guidelines for Human Evaluation of Faithfulness in Long-form Summarization',
  '2203.00130':
    'Paper Plain: Making Medical Research Papers Approachable to Healthcare Consumers with Natural Language Processing',
  '2203.06947':
    'XYLayoutLM: Towards Layout-Aware Multimodal Networks For Visually-Rich Document Understanding',
  '2206.10883':
    'Multi-LexSum: Real-World Summaries of Civil Rights Lawsuits at Multiple Granularities',
  '2304.02623':
    'Beyond Summarization: Designing AI Support for Real-World Expository Writing Tasks',
  '2305.14962': 'ICDAR 2023 Competition on Robust Layout Segmentation in Corporate Documents',
  'papermage-a-unified-toolkit-for-processing':
    'PaperMage: A Unified Toolkit for Processing, Representing, and Manipulating Visually-Rich Scientific Documents',
};

/** Words as both texts are compared: line-end hyphenation joined, accents and case folded. */
function normalisedWords(text: string): string[] {
  return text
    .replace(/(\p{L})-\s*\n\s*(\p{L})/gu, '$1$2')
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .split(/\s+/)
    .map((word) => word.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, ''))
    .filter((word) => word.length > 0);
}

/**
 * Share of the reference's words found in ours: as whole words (a multiset match), else, for the
 * rest, as a substring of our text with spaces removed (pdftotext splits "L A TEX", pdf.js "LATEX").
 */
function coverage(reference: string, ours: string): { strict: number; tolerant: number } {
  const counts = new Map<string, number>();
  for (const word of normalisedWords(ours)) counts.set(word, (counts.get(word) ?? 0) + 1);
  const squashed = normalisedWords(ours).join('');
  const words = normalisedWords(reference);
  let strict = 0;
  let tolerant = 0;
  for (const word of words) {
    const left = counts.get(word) ?? 0;
    if (left > 0) {
      counts.set(word, left - 1);
      strict++;
      tolerant++;
    } else if (squashed.includes(word)) {
      tolerant++;
    }
  }
  return { strict: strict / words.length, tolerant: tolerant / words.length };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

const files = readdirSync(papersDir)
  .filter((name) => name.endsWith('.pdf'))
  .map((name) => join(papersDir, name));

const pdftotext = (file: string) =>
  execFileSync('pdftotext', ['-q', file, '-'], { encoding: 'utf8', maxBuffer: 64 << 20 });

// pdftotext, sequentially, as the reference point.
let started = performance.now();
const references = new Map<string, string>();
for (const file of files) references.set(file, pdftotext(file));
const pdftotextMs = performance.now() - started;

const scratch = mkdtempSync(join(tmpdir(), 'rlm-bench-ingest-'));

interface EngineFigures {
  coldMs: number;
  warmMs: number;
  pages: number;
  reopenMs: number;
  coverage: { strict: number; tolerant: number }[];
  sections: number[];
  titlesCorrect: number;
  titles: string[];
  ids: string[];
}

/** Cold and warm ingest of the 20 into a fresh workspace, reopen, and what was read. */
async function measure(engine: ExtractEngine): Promise<EngineFigures> {
  const dir = join(scratch, engine);
  let workspace = openWorkspace(dir);
  let library = new PaperLibrary(workspace.db, { engine });
  let started = performance.now();
  const cold = await library.importPaths('bench', files);
  const coldMs = performance.now() - started;
  // Again with the pool the first one warmed (the set and its parsed documents removed first, so
  // every paper is parsed again): what every import after an app's first costs.
  library.removeSet('bench');
  started = performance.now();
  const results = await library.importPaths('bench', files);
  const warmMs = performance.now() - started;
  await library.dispose();
  const failed = [...cold, ...results].filter((result) => result.outcome !== 'added');
  if (failed.length > 0) throw new Error(`${engine} ingest failed: ${JSON.stringify(failed)}`);
  workspace.close();
  // Reopen: open the workspace, list the set and load every paper's REPL text, no parsing.
  const reopen: number[] = [];
  for (let round = 0; round < 7; round++) {
    started = performance.now();
    workspace = openWorkspace(dir);
    library = new PaperLibrary(workspace.db);
    library.papers('bench');
    library.texts('bench');
    reopen.push(performance.now() - started);
    workspace.close();
  }
  workspace = openWorkspace(dir);
  library = new PaperLibrary(workspace.db);
  const figures: EngineFigures = {
    coldMs,
    warmMs,
    pages: library.papers('bench').papers.reduce((sum, paper) => sum + paper.pages, 0),
    reopenMs: median(reopen),
    coverage: [],
    sections: [],
    titlesCorrect: 0,
    titles: [],
    ids: [],
  };
  for (const [index, file] of files.entries()) {
    const id = results[index]?.paperId ?? '';
    const paper = library.paper('bench', id);
    figures.ids.push(id);
    figures.coverage.push(coverage(references.get(file) ?? '', paper.fullText));
    figures.sections.push(paper.sectionList.length);
    figures.titles.push(paper.title);
    if (paper.title === expectedTitles[id]) figures.titlesCorrect++;
  }
  if (engine === 'pdfium') keywordSets.push(library.texts('bench').slice(0, 10));
  workspace.close();
  return figures;
}

const keywordSets: ReturnType<PaperLibrary['texts']>[] = [];
const pdfjs = await measure('pdf.js');
const pdfium = await measure('pdfium');

console.log(
  'paper\tpdfium strict/tolerant\tpdf.js tolerant\tsections pdfium/pdf.js\ttitle (pdfium)',
);
for (const [index, id] of pdfium.ids.entries()) {
  const ours = pdfium.coverage[index] ?? { strict: 0, tolerant: 0 };
  const theirs = pdfjs.coverage[index] ?? { strict: 0, tolerant: 0 };
  const correct = pdfium.titles[index] === expectedTitles[id];
  console.log(
    `${id}\t${pct(ours.strict)}/${pct(ours.tolerant)}\t${pct(theirs.tolerant)}\t${String(pdfium.sections[index])}/${String(pdfjs.sections[index])}\t${correct ? 'ok' : 'WRONG'} ${pdfium.titles[index] ?? ''}`,
  );
}

// 160 papers: the 20 eight times, each copy with one byte changed after %%EOF (a different
// document to the content cache, the same to a reader), read by pdftotext one after another and
// ingested by each engine into a fresh workspace.
const copies = join(scratch, 'copies');
mkdirSync(copies);
const many: string[] = [];
for (let round = 0; round < 8; round++)
  for (const file of files) {
    const copy = join(copies, `${String(round)}-${file.split('/').at(-1) ?? ''}`);
    writeFileSync(copy, Buffer.concat([readFileSync(file), Buffer.from(`\n%${String(round)}\n`)]));
    many.push(copy);
  }
started = performance.now();
for (const file of many) pdftotext(file);
const manyPdftotextMs = performance.now() - started;
const ingestMany = async (engine: ExtractEngine) => {
  const workspace = openWorkspace(join(scratch, `many-${engine}`));
  const library = new PaperLibrary(workspace.db, { engine });
  const begun = performance.now();
  const results = await library.importPaths('many', many);
  const ms = performance.now() - begun;
  await library.dispose();
  workspace.close();
  if (results.some((result) => result.outcome !== 'added'))
    throw new Error(`${engine}: not every copy was added`);
  return ms;
};
const manyPdfjsMs = await ingestMany('pdf.js');
const manyPdfiumMs = await ingestMany('pdfium');

// 1,000 papers: the 20 fifty times (a byte changed each time), ingested with progress as the app
// does, then what a researcher does with such a set: reopen it, keyword-search it, draw its map.
const thousand: string[] = [];
for (let round = 0; round < 50; round++)
  for (const file of files) {
    const copy = join(copies, `k${String(round)}-${file.split('/').at(-1) ?? ''}`);
    writeFileSync(copy, Buffer.concat([readFileSync(file), Buffer.from(`\n%k${String(round)}\n`)]));
    thousand.push(copy);
  }
const bigDir = join(scratch, 'thousand');
let big = openWorkspace(bigDir);
let bigLibrary = new PaperLibrary(big.db);
let progressEvents = 0;
started = performance.now();
const bigResults = await bigLibrary.importPaths('thousand', thousand, () => {
  progressEvents++;
});
const thousandIngestMs = performance.now() - started;
await bigLibrary.dispose();
big.close();
if (bigResults.some((result) => result.outcome !== 'added'))
  throw new Error('1,000 papers: not every copy was added');
// Reopen as the app does (the workspace opened, the set's papers listed), and with every paper's
// REPL text loaded too (what a run over the whole set reads first).
const bigReopen: number[] = [];
const bigReopenTexts: number[] = [];
for (let round = 0; round < 5; round++) {
  started = performance.now();
  big = openWorkspace(bigDir);
  bigLibrary = new PaperLibrary(big.db);
  bigLibrary.papers('thousand');
  bigReopen.push(performance.now() - started);
  bigLibrary.texts('thousand');
  bigReopenTexts.push(performance.now() - started);
  if (round < 4) big.close();
}
const bigSearch = new SetSearch(bigLibrary);
started = performance.now();
bigSearch.keyword('thousand', 'attention');
const thousandIndexMs = performance.now() - started;
const words = ['transformer', 'evidence', 'corpus', 'annotation', 'retrieval', 'layout', 'summary'];
const keywordMs: number[] = [];
for (let round = 0; round < 5; round++)
  for (const word of words) {
    const begun = performance.now();
    bigSearch.keyword('thousand', word);
    keywordMs.push(performance.now() - begun);
  }
started = performance.now();
const bigMap = bigSearch.map('thousand');
const thousandMapMs = performance.now() - started;
big.close();

const search = benchKeywordSearch(
  Object.fromEntries((keywordSets[0] ?? []).map((paper) => [paper.id, paper.context])),
);
rmSync(scratch, { recursive: true, force: true });

const tolerantOf = (figures: EngineFigures) => figures.coverage.map((c) => c.tolerant);
const fewerSections = pdfium.sections.filter((n, i) => n < (pdfjs.sections[i] ?? 0)).length;
const figures = {
  papers: files.length,
  pages: pdfium.pages,
  pdftotext_sequential_ms: Math.round(pdftotextMs),
  ingest_cold_ms: Math.round(pdfium.coldMs),
  ingest_vs_pdftotext_ratio: ratio(pdfium.coldMs, pdftotextMs),
  ingest_warm_ms: Math.round(pdfium.warmMs),
  ingest_warm_vs_pdftotext_ratio: ratio(pdfium.warmMs, pdftotextMs),
  pdfjs_ingest_cold_ms: Math.round(pdfjs.coldMs),
  pdfjs_ingest_vs_pdftotext_ratio: ratio(pdfjs.coldMs, pdftotextMs),
  pdfjs_ingest_warm_ms: Math.round(pdfjs.warmMs),
  papers_160_pdftotext_sequential_ms: Math.round(manyPdftotextMs),
  papers_160_ingest_ms: Math.round(manyPdfiumMs),
  papers_160_vs_pdftotext_ratio: ratio(manyPdfiumMs, manyPdftotextMs),
  papers_160_pdfjs_ingest_ms: Math.round(manyPdfjsMs),
  papers_160_pdfjs_vs_pdftotext_ratio: ratio(manyPdfjsMs, manyPdftotextMs),
  reopen_p50_ms: Number(pdfium.reopenMs.toFixed(1)),
  coverage_min_pct: Number((Math.min(...tolerantOf(pdfium)) * 100).toFixed(2)),
  coverage_mean_pct: Number((mean(tolerantOf(pdfium)) * 100).toFixed(2)),
  coverage_strict_min_pct: Number(
    (Math.min(...pdfium.coverage.map((c) => c.strict)) * 100).toFixed(2),
  ),
  pdfjs_coverage_min_pct: Number((Math.min(...tolerantOf(pdfjs)) * 100).toFixed(2)),
  titles_correct: pdfium.titlesCorrect,
  pdfjs_titles_correct: pdfjs.titlesCorrect,
  sections_total: pdfium.sections.reduce((a, b) => a + b, 0),
  pdfjs_sections_total: pdfjs.sections.reduce((a, b) => a + b, 0),
  papers_with_fewer_sections_than_pdfjs: fewerSections,
  papers_1000_ingest_ms: Math.round(thousandIngestMs),
  papers_1000_progress_events: progressEvents,
  papers_1000_reopen_p50_ms: Number(median(bigReopen).toFixed(1)),
  papers_1000_reopen_with_texts_p50_ms: Number(median(bigReopenTexts).toFixed(1)),
  papers_1000_search_index_ms: Math.round(thousandIndexMs),
  papers_1000_keyword_search_p50_ms: Number(median(keywordMs).toFixed(3)),
  papers_1000_map_ms: Math.round(thousandMapMs),
  papers_1000_map_points: bigMap.points.length,
  keyword_search_set_chars: (keywordSets[0] ?? []).reduce(
    (sum, paper) => sum + paper.context.length,
    0,
  ),
  keyword_search_p50_ms: Number(search.exact_p50_ms.toFixed(3)),
  keyword_search_fuzzy_p50_ms: Number(search.fuzzy_p50_ms.toFixed(3)),
};
console.log(JSON.stringify(figures));

function pct(value: number): string {
  return `${(value * 100).toFixed(2)}%`;
}
function ratio(a: number, b: number): number {
  return Number((a / b).toFixed(3));
}
function mean(values: number[]): number {
  return values.reduce((a, b) => a + b, 0) / values.length;
}
