import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import {
  ChildEntry,
  ChildEntryError,
  childEnv,
  ChildScriptMissingError,
  defineChild,
  unpackedPath,
} from './child-entry.ts';
import { forkChild, spawnChild, startWorker } from './start.ts';
import { embedChild } from '../papers/embed/index.ts';

const dir = mkdtempSync(join(tmpdir(), 'rlm-child-entry-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** A folder holding the given files: the declaring module's, or the desktop bundle's. */
function folder(name: string, files: string[]): string {
  const root = join(dir, name);
  mkdirSync(root, { recursive: true });
  for (const file of files) {
    mkdirSync(join(root, file, '..'), { recursive: true });
    writeFileSync(join(root, file), '');
  }
  return root;
}

const node24 = { execPath: '/usr/bin/node24', nodeVersion: '24.1.0' };
const node20 = { execPath: '/usr/bin/node20', nodeVersion: '20.19.0' };
const files = { source: './child-main.ts', bundled: 'child.cjs' };
const declaredIn = (folderPath: string) => pathToFileURL(join(folderPath, 'declaring.ts')).href;

describe('ChildEntry', () => {
  it('runs the source beside the declaring module with Node 24, else with the pinned Node', () => {
    const source = folder('source', ['child-main.ts']);
    const entry = defineChild(declaredIn(source), files);
    expect(entry.resolve(node24, '/nowhere')).toEqual({
      execPath: node24.execPath,
      script: join(source, 'child-main.ts'),
      bundled: false,
    });
    expect(entry.resolve(node20, '/nowhere').execPath).toBe(node20.execPath);
    const pinned = folder('pinned', ['node']);
    expect(entry.resolve(node20, join(pinned, 'node')).execPath).toBe(join(pinned, 'node'));
  });

  it("runs the bundle's script beside a bundled declaring module with the same binary", () => {
    const bundle = folder('bundled', ['child.cjs']);
    expect(defineChild(declaredIn(bundle), files).resolve(node20)).toEqual({
      execPath: node20.execPath,
      script: join(bundle, 'child.cjs'),
      bundled: true,
    });
  });

  it('reads an unpacked bundle from app.asar.unpacked', () => {
    const packed = join(dir, 'app', 'resources', 'app.asar', 'dist');
    folder(join('app', 'resources', 'app.asar.unpacked', 'dist'), ['repl/x.mjs']);
    const entry = defineChild(declaredIn(packed), {
      source: './x.ts',
      bundled: 'repl/x.mjs',
      unpacked: true,
    });
    expect(entry.resolve(node24).script).toBe(unpackedPath(join(packed, 'repl', 'x.mjs')));
    expect(entry.resolve(node24).script).toContain('app.asar.unpacked');
  });

  it('names both places when neither is there', () => {
    const entry = defineChild(declaredIn(folder('empty', [])), files);
    expect(() => entry.resolve(node24)).toThrow(ChildScriptMissingError);
    expect(() => entry.resolve(node24)).toThrow(/child\.cjs.*npm run build:electron/);
  });

  it('is declared beside its entry, never by a path out of the folder', () => {
    const here = declaredIn(folder('declaring', []));
    for (const source of ['../other/main.ts', '/abs/main.ts', 'main.ts', './a/../../b.ts']) {
      expect(() => defineChild(here, { source, bundled: 'x.cjs' })).toThrow(ChildEntryError);
    }
    expect(defineChild(here, { source: './sub/main.ts', bundled: 'x.cjs' })).toBeInstanceOf(
      ChildEntry,
    );
  });

  it('finds the embedding child beside its protocol in the source tree', () => {
    expect(embedChild.resolve().script).toMatch(/app\/papers\/embed\/embed-child\.ts$/);
  });
});

describe('starting a child', () => {
  const script = join(folder('started', ['child-main.ts']), 'child-main.ts');
  it('refuses a source path handed over as a string or URL', () => {
    const asEntry = (value: unknown) => value as ChildEntry;
    expect(() => spawnChild(asEntry(script), [], {})).toThrow(ChildEntryError);
    expect(() => forkChild(asEntry(pathToFileURL(script)), [], {})).toThrow(
      /starts from a ChildEntry/,
    );
    expect(() => startWorker(asEntry(script), {})).toThrow(/not the path/);
  });
});

describe('childEnv', () => {
  it('adds ELECTRON_RUN_AS_NODE under Electron only', () => {
    expect(childEnv({ HOME: '/home/u' }, { node: '24.1.0' })).toEqual({ HOME: '/home/u' });
    expect(childEnv({ HOME: '/home/u' }, { node: '24.1.0', electron: '41.0.0' })).toEqual({
      HOME: '/home/u',
      ELECTRON_RUN_AS_NODE: '1',
    });
    expect(childEnv({}, { electron: '41.0.0' })).toEqual({ ELECTRON_RUN_AS_NODE: '1' });
  });

  it('never passes on an inherited ELECTRON_RUN_AS_NODE or unset variables', () => {
    expect(childEnv({ ELECTRON_RUN_AS_NODE: '1', UNSET: undefined }, { node: '24.1.0' })).toEqual(
      {},
    );
  });
});
