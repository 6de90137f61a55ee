// Canceling an import: the papers read before the cancel stay, whole; every input not yet read
// ends as ImportCanceledError and is not recorded as the set's failure; the set reads as usual.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { openWorkspace, type Workspace } from '../store/index.ts';
import { PaperLibrary } from './library.ts';

const papersDir = new URL('../../../shared/data/papers/', import.meta.url).pathname;
const files = readdirSync(papersDir)
  .filter((name) => name.endsWith('.pdf'))
  .map((name) => join(papersDir, name));

let dir: string;
let workspace: Workspace;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rlm-cancel-'));
  workspace = openWorkspace(join(dir, 'ws'));
});
afterEach(() => {
  workspace.close();
  rmSync(dir, { recursive: true, force: true });
});

it('stops an import of the 20 papers after the first paper, keeping what was added', async () => {
  const library = new PaperLibrary(workspace.db, { poolSize: 1 });
  const controller = new AbortController();
  const results = await library.importPaths(
    'c',
    files,
    (result) => {
      if (result.outcome === 'added') controller.abort();
    },
    controller.signal,
  );
  await library.dispose();
  const added = results.filter((result) => result.outcome === 'added');
  const canceled = results.filter((result) => result.error?.name === 'ImportCanceledError');
  expect(added.length).toBeGreaterThanOrEqual(1);
  // At most the files already read ahead of the worker finish after the cancel.
  expect(added.length).toBeLessThanOrEqual(9);
  expect(added.length + canceled.length).toBe(files.length);
  expect(canceled[0]?.error?.message).toMatch(/was not read: the import was canceled first/);
  const listing = library.papers('c');
  expect(listing.papers.map((paper) => paper.id).sort()).toEqual(
    added.map((result) => result.paperId).sort(),
  );
  expect(listing.failures).toEqual([]);
  for (const paper of listing.papers)
    expect(library.paper('c', paper.id).fullText.length).toBeGreaterThan(1000);
});
