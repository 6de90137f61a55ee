// The pool's workers use their parent's module compile cache (bin/rlm-studio.js turns it on), so a
// start after the first loads pdf.js compiled instead of compiling it again.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const scratch = mkdtempSync(join(tmpdir(), 'rlm-pool-'));
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

function fileSizes(folder: string): number[] {
  return readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => statSync(join(entry.parentPath, entry.name)).size);
}

describe('ExtractionPool', () => {
  it("hands its workers the parent's compile cache folder, where pdf.js' compiled code lands", () => {
    const cache = join(scratch, 'compile-cache');
    const pool = new URL('./pool.ts', import.meta.url).href;
    const paper = new URL('../../../../shared/data/papers/1602.03483v1.pdf', import.meta.url)
      .pathname;
    // The parent thread itself never loads pdf.js: only a worker can have written its code.
    const script = `
      import { enableCompileCache } from 'node:module';
      import { readFileSync } from 'node:fs';
      enableCompileCache(${JSON.stringify(cache)});
      const { ExtractionPool } = await import(${JSON.stringify(pool)});
      const pool = new ExtractionPool(1);
      const paper = await pool.extract('paper.pdf', new Uint8Array(readFileSync(${JSON.stringify(paper)})));
      await pool.dispose();
      console.log(paper.pages);`;
    writeFileSync(join(scratch, 'extract.mjs'), script);
    const pages = execFileSync(process.execPath, [join(scratch, 'extract.mjs')], {
      encoding: 'utf8',
    });
    expect(Number(pages)).toBe(11);
    // pdf.js' worker module compiles to ~0.8 MB of code; the parent's own modules to < 20 kB each.
    expect(Math.max(...fileSizes(cache))).toBeGreaterThan(200_000);
  }, 60_000);
});
