// Runs the real `rlm-studio` launcher as a user would.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const launcher = new URL('../../bin/rlm-studio.js', import.meta.url).pathname;

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rlm-cli-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('rlm-studio', () => {
  it('lists serve in --help and prints its version', () => {
    const help = spawnSync(process.execPath, [launcher, '--help'], { encoding: 'utf8' });
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/serve \[options\]/);
    expect(help.stdout).toContain('--workspace <dir>');
    const version = spawnSync(process.execPath, [launcher, '--version'], { encoding: 'utf8' });
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('keeps compiled modules in node_modules/.cache, not the shared temp folder', () => {
    const result = spawnSync(process.execPath, [launcher, '--help'], {
      encoding: 'utf8',
      env: { ...process.env, NODE_DEBUG_NATIVE: 'COMPILE_CACHE' },
    });
    expect(result.status).toBe(0);
    const cache = new URL('../../node_modules/.cache/rlm-studio/compile', import.meta.url).pathname;
    expect(result.stderr).toContain(`[compile cache] resolved path ${cache}`);
    expect(result.stderr).toMatch(
      /\[compile cache\] reading cache from .* for \w+ file:\/\/.*\/host\/cli\/main\.ts/,
    );
  });

  it('rejects a bad port with a clear message and a non-zero exit', () => {
    const result = spawnSync(process.execPath, [launcher, 'serve', '--port', 'http'], {
      encoding: 'utf8',
    });
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain('a port is an integer from 0 to 65535');
  });

  it('serves on 127.0.0.1 with a token URL and stops cleanly on SIGTERM', async () => {
    const child = spawn(process.execPath, [launcher, '--workspace', dir, 'serve', '--json'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const line = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('\n')) resolve(out.split('\n')[0] ?? '');
      });
      child.on('exit', (code) => {
        reject(new Error(`serve exited early with ${String(code)}`));
      });
    });
    const { url, workspace } = JSON.parse(line) as { url: string; workspace: string };
    expect(workspace).toBe(dir);
    const parsed = new URL(url);
    expect(parsed.hostname).toBe('127.0.0.1');
    const bare = await fetch(`${parsed.origin}/`);
    expect(bare.status).toBe(401);
    const withToken = await fetch(url, { redirect: 'manual' });
    expect(withToken.status).toBe(302);
    const exit = new Promise<number | null>((resolve) => child.on('exit', resolve));
    child.kill('SIGTERM');
    expect(await exit).toBe(0);
  });
});
