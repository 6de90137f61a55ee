// patches/pdfjs-dist+*.patch speeds up pdf.js' text extraction; it must be applied (the install's
// postinstall) and must not change a single text item. The second test undoes the patch in a copy
// of pdf.js' build folder and compares both builds' text content on real papers.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = new URL('../../../', import.meta.url).pathname;
const patchName = readdirSync(join(root, 'patches')).find((name) => name.startsWith('pdfjs-dist+'));
const build = dirname(
  createRequire(import.meta.url).resolve('pdfjs-dist/legacy/build/pdf.worker.mjs'),
);
const papers = new URL('../../../../shared/data/papers/', import.meta.url).pathname;
const script = new URL('../fixtures/text-content.ts', import.meta.url).pathname;

/** Each hunk of a unified diff as the text it removes and the text it adds. */
function hunks(patch: string): { before: string; after: string }[] {
  const found: { before: string[]; after: string[] }[] = [];
  let current: { before: string[]; after: string[] } | null = null;
  for (const line of patch.split('\n')) {
    if (line.startsWith('@@')) {
      current = { before: [], after: [] };
      found.push(current);
    } else if (current && !line.startsWith('---') && !line.startsWith('+++')) {
      const body = line.slice(1);
      if (line.startsWith('-') || line.startsWith(' ')) current.before.push(body);
      if (line.startsWith('+') || line.startsWith(' ')) current.after.push(body);
    }
  }
  return found.map((hunk) => ({
    before: hunk.before.join('\n').trimEnd(),
    after: hunk.after.join('\n').trimEnd(),
  }));
}

/** Where two readings first differ (page and item, both items), or null when they are equal. */
function firstDifference(expected: unknown[][], actual: unknown[][]): string | null {
  for (let page = 0; page < Math.max(expected.length, actual.length); page++) {
    const want = expected[page] ?? [];
    const got = actual[page] ?? [];
    for (let item = 0; item < Math.max(want.length, got.length); item++) {
      const a = JSON.stringify(want[item]);
      const b = JSON.stringify(got[item]);
      if (a !== b) return `page ${page + 1}, item ${item}: unpatched ${a}, patched ${b}`;
    }
  }
  return null;
}

const patch = readFileSync(join(root, 'patches', patchName ?? 'missing'), 'utf8');
const scratch = mkdtempSync(join(tmpdir(), 'rlm-pdfjs-patch-'));
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

describe('the pdf.js patch', () => {
  it('is applied to the installed pdf.js', () => {
    expect(patchName).toBeDefined();
    const installed = readFileSync(join(build, 'pdf.worker.mjs'), 'utf8');
    const parts = hunks(patch);
    expect(parts.length).toBeGreaterThanOrEqual(2);
    for (const { before, after } of parts) {
      const hint = 'pdf.js is not patched: run `npm install` (its postinstall runs patch-package)';
      expect(installed.includes(after) && !installed.includes(before), hint).toBe(true);
    }
  });

  it('leaves every text item of real papers as unpatched pdf.js reads it', () => {
    const unpatched = join(scratch, 'build');
    cpSync(build, unpatched, { recursive: true });
    let source = readFileSync(join(unpatched, 'pdf.worker.mjs'), 'utf8');
    for (const { before, after } of hunks(patch)) {
      expect(source).toContain(after);
      source = source.replace(after, before);
    }
    writeFileSync(join(unpatched, 'pdf.worker.mjs'), source);
    // A paper with Type1 fonts and many saved graphics states, and one with TrueType fonts.
    for (const paper of ['1706.03762v5.pdf', '1602.03483v1.pdf']) {
      const read = (folder: string) =>
        execFileSync(process.execPath, [script, folder, join(papers, paper)], {
          stdio: ['ignore', 'pipe', 'ignore'],
          encoding: 'utf8',
          maxBuffer: 64 << 20,
        });
      const patched = JSON.parse(read(build)) as unknown[][];
      expect(patched.flat().length).toBeGreaterThan(1000);
      expect(firstDifference(JSON.parse(read(unpatched)) as unknown[][], patched)).toBeNull();
    }
  }, 60_000);
});
