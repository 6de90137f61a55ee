// Which engine read a paper: PDFium ingests; papers read by pdf.js before (workspaces made then)
// stay as they were, readable and highlighted, until they are read again on request; reading
// again changes the shared document for every set that holds it, and fails per paper by name.
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { migrate, migrations, openWorkspace, type Workspace } from '../store/index.ts';
import { PaperLibrary } from './library.ts';

const shared = new URL('../../../shared/data/', import.meta.url).pathname;
const s2orc = join(shared, 'papers', '2020.acl-main.447_arXiv-1911.02782_S2ORC.pdf');
const qasperSubset = join(shared, 'qasper', 'qasper_test_v0.3_subset_papers_with_pdf.json');

let dir: string;
let workspace: Workspace;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rlm-engines-'));
  workspace = openWorkspace(join(dir, 'ws'));
});
afterEach(() => {
  workspace.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Runs `work` with a library over the workspace, disposed after. */
async function withLibrary<T>(
  work: (library: PaperLibrary) => Promise<T> | T,
  engine?: 'pdfium' | 'pdf.js',
): Promise<T> {
  const library = new PaperLibrary(workspace.db, { poolSize: 1, ...(engine ? { engine } : {}) });
  try {
    return await work(library);
  } finally {
    await library.dispose();
  }
}

describe('extraction engines', () => {
  it('ingests with PDFium and says so', async () => {
    const [result] = await withLibrary((library) => library.importPaths('a', [s2orc]));
    const paper = await withLibrary((library) => library.paper('a', result?.paperId ?? ''));
    expect(paper.engine).toBe('pdfium');
    expect(paper.title).toBe('S2ORC: The Semantic Scholar Open Research Corpus');
    // The listing's facts (migration 8) hold the stored PDF's size.
    const [listed] = await withLibrary((library) => library.papers('a').papers);
    expect(listed).toMatchObject({
      hasPdf: true,
      source: { kind: 'pdf', bytes: statSync(s2orc).size },
    });
  });

  it("keeps pdf.js' papers as they were until asked, then reads them again for every set", async () => {
    const [added] = await withLibrary((library) => library.importPaths('old', [s2orc]), 'pdf.js');
    const id = added?.paperId ?? '';
    const before = await withLibrary((library) => library.paper('old', id));
    expect(before.engine).toBe('pdf.js');
    // A later app (PDFium by default) opens the workspace: nothing is read again by itself.
    const { reopened, again, box } = await withLibrary(async (library) => {
      const [copy] = await library.importPaths('new', [s2orc]);
      return {
        reopened: library.paper('old', id),
        again: library.paper('new', copy?.paperId ?? ''),
        box: library.highlight('old', id, 100, 140).boxes,
      };
    });
    expect(reopened.fullText).toBe(before.fullText);
    expect(reopened.engine).toBe('pdf.js');
    expect(again.engine).toBe('pdf.js'); // the same document, reused by content
    expect(box.length).toBeGreaterThan(0);

    const results = await withLibrary((library) => library.reextract('old'));
    expect(results).toEqual([
      { paperId: id, outcome: 'reextracted', engine: 'pdfium', sets: ['new', 'old'] },
    ]);
    const after = await withLibrary((library) => [
      library.paper('old', id),
      library.paper('new', id),
    ]);
    expect(after.map((paper) => paper.engine)).toEqual(['pdfium', 'pdfium']);
    expect(after[0]?.title).toBe(before.title);
    expect(after[0]?.sections).toBeGreaterThanOrEqual(before.sections);
  });

  it('fails each paper that cannot be read again by name, the others go on', async () => {
    await withLibrary((library) => library.importPaths('mixed', [s2orc, qasperSubset]));
    const ids = await withLibrary((library) => library.papers('mixed').papers.map((p) => p.id));
    const results = await withLibrary((library) =>
      library.reextract('mixed', [...ids, 'no-such-paper'], 'pdf.js'),
    );
    // In the order asked, each with its own outcome.
    expect(results.map((r) => r.paperId)).toEqual([...ids, 'no-such-paper']);
    const outcome = (id: string) => {
      const result = results.find((r) => r.paperId === id);
      return [result?.outcome, result?.error?.name];
    };
    expect(outcome('1911.02782')).toEqual(['reextracted', undefined]);
    expect(ids.filter((id) => id !== '1911.02782').map(outcome)).toEqual([
      ['failed', 'PaperHasNoPdfError'],
      ['failed', 'PaperHasNoPdfError'],
    ]);
    expect(outcome('no-such-paper')).toEqual(['failed', 'PaperNotFoundError']);
    await expect(withLibrary((library) => library.reextract('nope'))).rejects.toThrow(
      /PaperSetNotFoundError|no paper set/i,
    );
  });
});

/** A workspace written up to schema `upTo` by `write`, then opened and migrated as the app does. */
function olderWorkspace(
  file: string,
  upTo: number,
  write: (db: DatabaseSync) => void,
): DatabaseSync {
  const db = new DatabaseSync(join(dir, file));
  migrate(
    db,
    migrations.filter((m) => m.version <= upTo),
  );
  write(db);
  db.close();
  const upgraded = new DatabaseSync(join(dir, file));
  upgraded.exec('PRAGMA foreign_keys = ON');
  migrate(upgraded);
  return upgraded;
}

describe('migration 7', () => {
  it("reads an older workspace's documents as pdf.js' (PDF) and QASPER's", () => {
    const upgraded = olderWorkspace('old.db', 6, (db) => {
      const insert = db.prepare(
        `INSERT INTO documents (sha256, kind, extractor, title, authors, abstract, full_text, sections,
           page_starts, page_sizes, runs, pages, words, pdf, created_at)
         VALUES (?, ?, 1, 't', '[]', '', 'text', '[]', '[]', '[]', NULL, 1, 1, NULL, 0)`,
      );
      insert.run('a', 'pdf');
      insert.run('b', 'qasper');
      db.exec(`INSERT INTO paper_sets (name, created_at, updated_at) VALUES ('s', 0, 0);
        INSERT INTO papers (set_name, id, sha256, source, added_at) VALUES ('s', 'a', 'a', '{"kind":"pdf"}', 0), ('s', 'b', 'b', '{"kind":"qasper"}', 1);`);
    });
    const library = new PaperLibrary(upgraded);
    expect(library.papers('s').papers.map((paper) => [paper.id, paper.engine])).toEqual([
      ['a', 'pdf.js'],
      ['b', 'qasper'],
    ]);
    upgraded.close();
  });
});
describe('migration 8', () => {
  it("lists an older workspace's papers from their facts, and drops the facts with the set", () => {
    const upgraded = olderWorkspace('older.db', 7, (db) => {
      db.prepare(
        `INSERT INTO documents (sha256, kind, extractor, title, authors, abstract, full_text, sections,
           page_starts, page_sizes, runs, pages, words, pdf, created_at)
         VALUES ('a', 'pdf', 1, 'A title', '["Ann"]', '', 'text', ?, '[]', '[]', NULL, 3, 42, ?, 0)`,
      ).run(
        JSON.stringify([
          { title: 'Intro', start: 0 },
          { title: 'Method', start: 2 },
        ]),
        new Uint8Array(1234),
      );
      db.exec(`INSERT INTO paper_sets (name, created_at, updated_at) VALUES ('s', 0, 0);
        INSERT INTO papers (set_name, id, sha256, source, added_at) VALUES ('s', 'a', 'a', '{"kind":"pdf","fileName":"a.pdf"}', 0);`);
    });
    const library = new PaperLibrary(upgraded);
    const [paper] = library.papers('s').papers;
    expect(paper).toMatchObject({
      title: 'A title',
      authors: ['Ann'],
      pages: 3,
      words: 42,
      sections: 2,
      hasPdf: true,
      source: { kind: 'pdf', fileName: 'a.pdf', bytes: 1234 },
    });
    expect(library.store.listSets()[0]).toMatchObject({ name: 's', pages: 3, words: 42 });
    library.store.removeSet('s');
    expect(upgraded.prepare('SELECT COUNT(*) AS n FROM document_facts').get()).toEqual({ n: 0 });
    upgraded.close();
  });
});
// Read once so a missing shared file fails here with its path, not inside a library call.
readFileSync(s2orc);
