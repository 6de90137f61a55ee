// The pool's workers use their parent's module compile cache (bin/rlm-studio.js turns it on), so a
// start after the first loads pdf.js compiled instead of compiling it again.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
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
    const script = new URL('../fixtures/extract-with-compile-cache.ts', import.meta.url).pathname;
    const paper = new URL('../../../../shared/data/papers/1602.03483v1.pdf', import.meta.url)
      .pathname;
    const pages = execFileSync(process.execPath, [script, cache, paper], { encoding: 'utf8' });
    expect(Number(pages)).toBe(11);
    // pdf.js' worker module compiles to ~0.8 MB of code; the parent's own modules to < 20 kB each.
    expect(Math.max(...fileSizes(cache))).toBeGreaterThan(200_000);
  }, 60_000);
});
