// electron-builder.yml against what the app needs at run time: everything the REPL's interpreter
// process reads must be unpacked from app.asar (a child run as Node under --permission reads plain
// files; app/repl/interpreter-files.ts looks for them in app.asar.unpacked), and the native code
// the embedder and trainer processes load from node_modules must be too (the dynamic linker reads
// no archive).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, matchesGlob, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { childExternals, electronBuildOptions, replOutDir } from '../scripts/build-electron.ts';

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

/** Where Node would find package `name` from `fromDir`: the nearest node_modules up the tree. */
function packageDir(name: string, fromDir: string): string | undefined {
  const top = join(root, '.');
  for (let at = fromDir; ; at = dirname(at)) {
    const candidate = join(at, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (at === top || at === dirname(at)) return undefined;
  }
}

/** The installed packages `names` need at run time (dependencies and optional ones, recursively). */
function runtimeClosure(names: readonly string[]): string[] {
  const seen = new Set<string>();
  const visit = (name: string, fromDir: string) => {
    const at = packageDir(name, fromDir);
    if (at === undefined || seen.has(at)) return;
    seen.add(at);
    const manifest = JSON.parse(readFileSync(join(at, 'package.json'), 'utf8')) as {
      dependencies?: Record<string, string>;
      optionalDependencies?: Record<string, string>;
    };
    for (const dep of Object.keys({ ...manifest.dependencies, ...manifest.optionalDependencies })) {
      visit(dep, at);
    }
  };
  for (const name of names) visit(name, root);
  return [...seen].sort();
}

/** A package's files, without the packages nested in its own node_modules. */
function packageFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : packageFiles(path);
    return entry.isFile() ? [path] : [];
  });
}

describe('the native code of the engine’s child processes', () => {
  const asarUnpack = yamlList('asarUnpack');
  const unpacked = (path: string) => asarUnpack.some((pattern) => matchesGlob(path, pattern));
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
  };

  it('comes from production dependencies (electron-builder packages no others)', () => {
    const externals = [...new Set(Object.values(childExternals).flat())];
    expect(externals.filter((name) => !(name in manifest.dependencies))).toEqual([]);
  });

  it('is unpacked from app.asar: by electron-builder itself, or by asarUnpack', () => {
    // electron-builder 26's smart unpack (app-builder-lib/out/asar/unpackDetector.js) unpacks a
    // whole package when one of its files ends in .dll, .exe, .dylib, .so or .node; a library
    // named with its version after .so (libvips-cpp.so.8.18.7) is not caught by that rule.
    const smartUnpacked = (files: string[]) =>
      files.some((file) => /\.(dll|exe|dylib|so|node)$/.test(file));
    const native = (file: string) => /\.(dll|dylib|so|node)(\.\d+)*$/.test(file);
    const packages = runtimeClosure(Object.values(childExternals).flat());
    expect(packages.map((dir) => relative(root, dir))).toContain(
      join('node_modules', 'onnxruntime-node'),
    );
    const stranded = packages.flatMap((dir) => {
      const files = packageFiles(dir);
      if (smartUnpacked(files)) return [];
      return files
        .filter(native)
        .map((file) => relative(root, file))
        .filter((p) => !unpacked(p));
    });
    expect(stranded).toEqual([]);
  });
});
