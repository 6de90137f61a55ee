// electron-builder.yml against what the app needs at run time: everything the REPL's interpreter
// process reads must be unpacked from app.asar (a child run as Node under --permission reads plain
// files; app/repl/interpreter-files.ts looks for them in app.asar.unpacked).
import { readdirSync, readFileSync } from 'node:fs';
import { join, matchesGlob, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { electronBuildOptions, replOutDir } from '../scripts/build-electron.ts';

const root = fileURLToPath(new URL('..', import.meta.url));

/** The entries of a top-level list in electron-builder.yml (block style, `  - item` lines). */
function yamlList(key: string): string[] {
  const lines = readFileSync(join(root, 'electron-builder.yml'), 'utf8').split('\n');
  const start = lines.indexOf(`${key}:`);
  if (start < 0) return [];
  const items: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (line.trimStart().startsWith('#')) continue;
    const item = /^\s+-\s+'?([^']+?)'?\s*$/.exec(line);
    if (!item?.[1]) break;
    items.push(item[1]);
  }
  return items;
}

describe('electron-builder.yml', () => {
  const asarUnpack = yamlList('asarUnpack');
  const unpacked = (path: string) => asarUnpack.some((pattern) => matchesGlob(path, pattern));

  it('packs the app into app.asar', () => {
    expect(readFileSync(join(root, 'electron-builder.yml'), 'utf8')).toMatch(/^asar: true$/m);
  });

  it('unpacks the interpreter bundles and the Python sources the build writes', () => {
    const options = electronBuildOptions({ root });
    const repl = relative(root, replOutDir(join(root, 'dist', 'electron')));
    const written = [
      relative(root, options.interpreter.outfile),
      relative(root, options.cancelWatch.outfile),
      ...readdirSync(join(root, 'app', 'repl', 'python'))
        .filter((name) => name.endsWith('.py'))
        .map((name) => join(repl, 'python', name)),
    ];
    expect(written.filter((path) => !unpacked(path))).toEqual([]);
    // ...and nothing else of the shell: main.cjs and the preload stay in the archive.
    expect(unpacked(relative(root, options.main.outfile))).toBe(false);
  });

  it('unpacks every file of Pyodide', () => {
    const pyodide = readdirSync(join(root, 'node_modules', 'pyodide')).map((name) =>
      join('node_modules', 'pyodide', name),
    );
    expect(pyodide).toContain(join('node_modules', 'pyodide', 'pyodide.asm.wasm'));
    expect(pyodide.filter((path) => !unpacked(path))).toEqual([]);
  });
});
