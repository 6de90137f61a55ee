// A process killed in the middle of a write loses nothing it committed and leaves an intact
// database: WAL + synchronous NORMAL, checked with a real SIGKILL.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { integrityCheck } from './database.ts';
import { openWorkspace } from './workspace.ts';

const writer = new URL('./fixtures/crash-writer.ts', import.meta.url).pathname;

function runUntil(dir: string, committed: number, marker: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [writer, dir, String(committed)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (marker.test(output)) child.kill('SIGKILL');
    });
    // 'close', not 'exit': the lines still in the pipe when the child died are read first.
    child.on('close', (_code, signal) => {
      if (signal === 'SIGKILL') resolve(output);
      else reject(new Error(`writer exited without being killed: ${stderr}`));
    });
  });
}

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rlm-crash-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('crash safety', () => {
  it('keeps every committed row and none of the open transaction after SIGKILL', async () => {
    await runUntil(dir, 50, /mid-transaction/);
    const workspace = openWorkspace(dir);
    expect(integrityCheck(workspace.db)).toBe('ok');
    const counts = workspace.db
      .prepare('SELECT phase, COUNT(*) AS n FROM crash_rows GROUP BY phase')
      .all();
    expect(counts).toEqual([{ phase: 'committed', n: 50 }]);
    workspace.close();
  });

  it('keeps every commit the writer reported when killed between commits', async () => {
    const output = await runUntil(dir, 400, /committed 137\n/);
    const reported = Math.max(...[...output.matchAll(/committed (\d+)/g)].map((m) => Number(m[1])));
    const workspace = openWorkspace(dir);
    expect(integrityCheck(workspace.db)).toBe('ok');
    const row = workspace.db
      .prepare("SELECT COUNT(*) AS n FROM crash_rows WHERE phase = 'committed'")
      .get() as { n: number };
    expect(row.n).toBeGreaterThanOrEqual(reported);
    expect(row.n).toBeLessThanOrEqual(reported + 1);
    workspace.close();
  });
});
