// Ingestion of real and broken inputs: each bad file gets its named error while the rest of the set
// ingests, and nothing half-written stays in the workspace.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IngestResult } from '../api/index.ts';
import { openWorkspace, type Workspace } from '../store/index.ts';
import { imageOnlyPage, makePdf, textPage } from './fixtures/make-pdf.ts';
import { inputsFromPaths } from './ingest.ts';
import { PaperLibrary } from './library.ts';

const shared = new URL('../../../shared/data/', import.meta.url).pathname;
const s2orc = join(shared, 'papers', '2020.acl-main.447_arXiv-1911.02782_S2ORC.pdf');
const qasperSubset = join(shared, 'qasper', 'qasper_test_v0.3_subset_papers_with_pdf.json');

let dir: string;
let workspace: Workspace;
let library: PaperLibrary;

function write(name: string, data: Uint8Array | string): string {
  const path = join(dir, 'inputs', name);
  writeFileSync(path, data);
  return path;
}

function rowCount(table: string): number {
  return (workspace.db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rlm-ingest-'));
  mkdirSync(join(dir, 'inputs'));
  workspace = openWorkspace(join(dir, 'ws'));
  library = new PaperLibrary(workspace.db, { poolSize: 2 });
});
afterAll(async () => {
  await library.dispose();
  workspace.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('ingestion', () => {
  it('gives each bad file its named error, ingests the rest and leaves nothing half-written', async () => {
    const real = readFileSync(s2orc);
    const inputs = [
      write(
        'good.pdf',
        makePdf({
          pages: [
            textPage([
              'A Small Test Paper',
              '',
              'Abstract',
              'We test the ingestion of evidence text in small files.',
            ]),
          ],
        }),
      ),
      write('notes.pdf', 'just some text, not a pdf'),
      write('empty.pdf', new Uint8Array()),
      write('truncated.pdf', real.subarray(0, Math.floor(real.length / 2))),
      write(
        'corrupt.pdf',
        Buffer.concat([
          Buffer.from('%PDF-1.7\n'),
          Buffer.alloc(5000, 0x41),
          Buffer.from('\n%%EOF\n'),
        ]),
      ),
      write('locked.pdf', makePdf({ pages: [textPage(['secret'])], encrypted: true })),
      write('scan.pdf', makePdf({ pages: [imageOnlyPage, imageOnlyPage] })),
      write('nopages.pdf', makePdf({ pages: [] })),
      write('vanishing.pdf', makePdf({ pages: [textPage(['soon gone'])] })),
    ];
    const items = await inputsFromPaths(inputs);
    unlinkSync(inputs.at(-1) ?? '');
    const progress: string[] = [];
    const results = await library.importInputs('mixed', items, (result) =>
      progress.push(result.input),
    );
    const byName: Record<string, IngestResult | undefined> = Object.fromEntries(
      results.map((result) => [result.input.split('/').at(-1) ?? '', result]),
    );
    expect(byName['good.pdf']).toMatchObject({ outcome: 'added' });
    expect(byName['notes.pdf']?.error?.name).toBe('NotAPdfError');
    expect(byName['empty.pdf']?.error?.name).toBe('EmptyFileError');
    expect(byName['truncated.pdf']?.error?.name).toBe('PdfTruncatedError');
    expect(byName['corrupt.pdf']?.error?.name).toBe('PdfCorruptError');
    expect(byName['locked.pdf']?.error?.name).toBe('PdfEncryptedError');
    expect(byName['scan.pdf']?.error?.name).toBe('PdfNoTextLayerError');
    expect(byName['nopages.pdf']?.error?.name).toBe('PdfNoPagesError');
    expect(byName['vanishing.pdf']?.error?.name).toBe('FileVanishedError');
    expect(progress).toHaveLength(inputs.length);
    for (const result of results.filter((r) => r.outcome === 'failed')) {
      expect(result.error?.message).toContain(result.input.split('/').at(-1));
    }
    expect(rowCount('documents')).toBe(1);
    expect(rowCount('papers')).toBe(1);
    expect(library.papers('mixed').failures).toHaveLength(8);
    expect(library.papers('mixed').papers.map((paper) => paper.title)).toEqual([
      'A Small Test Paper',
    ]);
  });

  it('detects the same PDF added twice, and reuses cached text across sets', async () => {
    const first = await library.importPaths('twice', [s2orc, s2orc]);
    expect(first.map((result) => result.outcome)).toEqual(['added', 'duplicate']);
    const again = await library.importPaths('twice', [s2orc]);
    expect(again).toEqual([{ input: s2orc, outcome: 'duplicate', paperId: '1911.02782' }]);
    const documents = rowCount('documents');
    const other = await library.importPaths('other', [s2orc]);
    expect(other[0]?.outcome).toBe('added');
    expect(rowCount('documents')).toBe(documents);
  });

  it('keeps the text, title, sections and page map of a real paper', () => {
    const paper = library.paper('twice', '1911.02782');
    expect(paper.title).toBe('S2ORC: The Semantic Scholar Open Research Corpus');
    expect(paper.authors).toContain('Kyle Lo');
    expect(paper.pages).toBe(15);
    expect(paper.abstract).toMatch(/^We introduce S2ORC/);
    expect(paper.contextText.startsWith(`### PAPER: ${paper.title}\n\n${paper.abstract}\n\n`)).toBe(
      true,
    );
    expect(paper.contextText.slice(paper.contextOffset)).toBe(paper.fullText);
    const titles = paper.sectionList.map((section) => section.title);
    expect(titles).toEqual(
      expect.arrayContaining(['Abstract', '1 Introduction', '2.1 Processing PDFs', 'References']),
    );
    expect(paper.sectionList.find((section) => section.title === 'References')?.references).toBe(
      true,
    );
    for (const section of paper.sectionList)
      expect(paper.fullText.slice(section.start)).toMatch(
        new RegExp(`^${section.title.slice(0, 8).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`),
      );
    expect(paper.pageStarts).toHaveLength(15);
  });

  it('maps a character range of the text to boxes on the right PDF page', () => {
    const paper = library.paper('twice', '1911.02782');
    const phrase = 'Processing PDFs';
    const start = paper.fullText.indexOf(phrase);
    const page = paper.pageStarts.findLastIndex((pageStart) => pageStart <= start);
    const { boxes, pages } = library.highlight('twice', '1911.02782', start, start + phrase.length);
    expect(boxes.length).toBeGreaterThan(0);
    expect(boxes.every((box) => box.page === page)).toBe(true);
    const [box] = boxes;
    if (!box || !pages[page]) throw new Error('no box');
    expect(box.x).toBeGreaterThan(0);
    expect(box.x + box.width).toBeLessThan(pages[page].width);
    expect(box.width).toBeGreaterThan(40);
    expect(box.height).toBeGreaterThan(5);
  });

  it('imports QASPER JSON with exact section offsets, and reports a malformed entry', async () => {
    const results = await library.importPaths('qasper', [qasperSubset]);
    expect(results.map((result) => result.outcome)).toEqual(['added', 'added']);
    const paper = library.paper('qasper', '1602.03483');
    expect(paper.hasPdf).toBe(false);
    for (const section of paper.sectionList)
      expect(paper.fullText.slice(section.start, section.end).startsWith(section.title)).toBe(true);
    const broken = write(
      'broken.json',
      JSON.stringify({
        good: {
          title: 'T',
          abstract: 'A',
          full_text: [{ section_name: 'Intro', paragraphs: ['p'] }],
        },
        bad: { title: 3 },
      }),
    );
    const mixed = await library.importPaths('qasper-mixed', [broken]);
    expect(mixed.map((result) => [result.input, result.outcome, result.error?.name])).toEqual([
      ['good', 'added', undefined],
      ['bad', 'failed', 'QasperFormatError'],
    ]);
    expect(mixed[1]?.error?.message).toContain("field 'title'");
    const notJson = write('garbage.json', '{ nope');
    expect((await library.importPaths('qasper-mixed', [notJson]))[0]?.error?.name).toBe(
      'QasperFormatError',
    );
  });

  it('fails an arXiv id clearly when offline and ingests it when the download works', async () => {
    const offline = await library.importArxiv('arxiv', ['1911.02782'], undefined, () =>
      Promise.reject(
        new TypeError('fetch failed', { cause: new Error('getaddrinfo ENOTFOUND arxiv.org') }),
      ),
    );
    expect(offline[0]?.error?.name).toBe('ArxivUnavailableError');
    expect(offline[0]?.error?.message).toContain('ENOTFOUND');
    const bytes = readFileSync(s2orc);
    const online = await library.importArxiv('arxiv', ['1911.02782'], undefined, (url) => {
      expect(url).toBe('https://arxiv.org/pdf/1911.02782');
      return Promise.resolve({
        ok: true,
        status: 200,
        arrayBuffer: () =>
          Promise.resolve(
            bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength),
          ),
      });
    });
    expect(online[0]).toMatchObject({ outcome: 'added', paperId: '1911.02782' });
    const missing = await library.importArxiv('arxiv', ['9999.99999'], undefined, () =>
      Promise.resolve({
        ok: false,
        status: 404,
        arrayBuffer: () => Promise.resolve(new ArrayBuffer(0)),
      }),
    );
    expect(missing[0]?.error?.name).toBe('ArxivNotFoundError');
  });

  it('refuses unknown sets and papers by name', () => {
    expect(() => library.papers('nope')).toThrow(/PaperSetNotFoundError|no paper set 'nope'/);
    expect(() => library.paper('twice', 'nope')).toThrow(/has no paper 'nope'/);
    expect(() => library.pdf('qasper', '1602.03483')).toThrow(/has no PDF/);
  });
});
