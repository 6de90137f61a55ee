import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { childEnv, childScript, ChildScriptMissingError } from './child-script.ts';
import { embedChildNames } from './embedder-process.ts';
import { trainJobNames } from './trainer-process.ts';

const dir = mkdtempSync(join(tmpdir(), 'rlm-child-script-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** A fake project: root/app/host (this module's folder) with the given files under root. */
function project(name: string, files: string[]): string {
  const root = join(dir, name);
  mkdirSync(join(root, 'app', 'host'), { recursive: true });
  for (const file of files) {
    mkdirSync(join(root, file, '..'), { recursive: true });
    writeFileSync(join(root, file), '');
  }
  return join(root, 'app', 'host');
}

const node24 = { execPath: '/usr/bin/node24', nodeVersion: '24.1.0' };
const node20 = { execPath: '/usr/bin/node20', nodeVersion: '20.19.0' };
const names = { bundled: 'child.cjs', source: '../child/main.ts' };

describe('childScript', () => {
  it('runs the bundle beside this module with the same binary', () => {
    const host = project('bundled', ['app/host/child.cjs', 'app/child/main.ts']);
    expect(childScript(names, host, node20)).toEqual({
      execPath: node20.execPath,
      script: join(host, 'child.cjs'),
    });
  });

  it('runs the source with Node 24, else with the pinned Node when it is installed', () => {
    const host = project('source', ['app/child/main.ts']);
    const source = join(host, '..', 'child', 'main.ts');
    expect(childScript(names, host, node24)).toEqual({ execPath: node24.execPath, script: source });
    expect(childScript(names, host, node20).execPath).toBe(node20.execPath);
    const pinned = project('pinned', ['app/child/main.ts', 'node_modules/node/bin/node']);
    expect(childScript(names, pinned, node20).execPath).toBe(
      join(pinned, '..', '..', 'node_modules', 'node', 'bin', 'node'),
    );
  });

  it('names both places when neither is there', () => {
    const host = project('empty', []);
    expect(() => childScript(names, host, node24)).toThrow(ChildScriptMissingError);
    expect(() => childScript(names, host, node24)).toThrow(/child\.cjs.*npm run build:electron/);
  });

  it('finds the embedder and trainer sources from app/host', () => {
    expect(childScript(embedChildNames).script).toMatch(/app\/papers\/embed\/embed-child\.ts$/);
    expect(childScript(trainJobNames).script).toMatch(/training\/rl\/train-job-main\.ts$/);
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
