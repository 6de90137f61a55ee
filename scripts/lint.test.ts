import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { lintChecks, runChecks, type Check } from './lint.ts';

const node = (name: string, code: string): Check => ({
  name,
  command: process.execPath,
  args: ['-e', code],
});

let dir = '';
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = '';
});

describe('runChecks', () => {
  it('runs the checks at once and reports each exit code with its whole output', async () => {
    const written: string[] = [];
    const started = performance.now();
    const results = await runChecks(
      [
        node('slow-pass', "setTimeout(() => console.log('fine'), 400)"),
        node('fails', "setTimeout(() => { console.error('bad file'); process.exit(3); }, 400)"),
      ],
      tmpdir(),
      (text) => written.push(text),
    );
    // Side by side: both 400 ms checks end well before the 800 ms they would take in a row.
    expect(performance.now() - started).toBeLessThan(780);
    expect(results.map((result) => [result.name, result.code, result.output])).toEqual([
      ['slow-pass', 0, 'fine\n'],
      ['fails', 3, 'bad file\n'],
    ]);
    const text = written.join('');
    expect(text).toMatch(/== slow-pass passed in \d+\.\d s/);
    expect(text).toMatch(/== fails FAILED \(exit 3\) in \d+\.\d s/);
  });

  it('reports a check that cannot start as failed, with the reason', async () => {
    const [result] = await runChecks(
      [{ name: 'missing', command: '/nonexistent/eslint', args: [] }],
      tmpdir(),
      () => undefined,
    );
    expect(result?.code).not.toBe(0);
    expect(result?.output).toContain('missing could not start');
  });
});

describe('lintChecks', () => {
  it("Prettier's check fails on a badly formatted file and passes once it is formatted", async () => {
    const prettier = lintChecks.find((check) => check.name === 'prettier');
    if (!prettier) throw new Error('no prettier check');
    dir = mkdtempSync(join(tmpdir(), 'lint-'));
    writeFileSync(join(dir, 'x.ts'), 'export const x  =  {a:1}\n');
    const [bad] = await runChecks([prettier], dir, () => undefined);
    expect(bad?.code).not.toBe(0);
    expect(bad?.output).toContain('x.ts');
    writeFileSync(join(dir, 'x.ts'), 'export const x = { a: 1 };\n');
    const [good] = await runChecks([prettier], dir, () => undefined);
    expect(good?.code).toBe(0);
  });
});
