// `rlm-studio import` and `export` as a user runs them, with --workspace after the subcommand.
import { spawn, spawnSync } from 'node:child_process';
import {
  appendFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const launcher = new URL('../../bin/rlm-studio.js', import.meta.url).pathname;
const realLog = new URL(
  '../../../shared/data/trajectories/alexzhang13-rlm-gpt4o-example.jsonl',
  import.meta.url,
).pathname;
const cli = (...args: string[]) =>
  spawnSync(process.execPath, [launcher, ...args], { encoding: 'utf8', timeout: 60_000 });

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rlm-import-cli-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

interface Report {
  format: string;
  runs: { runId: string; agents: number; turns: number }[];
  problems: { line: number; name: string }[];
}

describe('rlm-studio import / export', () => {
  it('imports the real rlm log as JSON, exports a run and imports it into another workspace', () => {
    const imported = cli('import', realLog, '--workspace', join(dir, 'a'), '--json');
    expect(imported.stderr).toBe('');
    expect(imported.status).toBe(0);
    const report = JSON.parse(imported.stdout) as Report;
    expect(report.format).toBe('rlm-log');
    expect(report.runs.map((run) => [run.agents, run.turns])).toEqual([
      [1, 4],
      [1, 3],
      [1, 3],
      [1, 1],
      [1, 3],
      [1, 3],
    ]);
    const out = join(dir, 'run.jsonl');
    const runId = report.runs[1]?.runId ?? '';
    const exported = cli('--workspace', join(dir, 'a'), 'export', runId, '--out', out);
    expect(exported.status).toBe(0);
    expect(readFileSync(out, 'utf8').split('\n')[0]).toContain(`"id":"${runId}"`);
    const back = cli('import', out, '--workspace', join(dir, 'b'), '--json', '--format', 'ours');
    expect(back.status).toBe(0);
    expect((JSON.parse(back.stdout) as Report).runs).toEqual([
      expect.objectContaining({ runId, agents: 1, turns: 3 }),
    ]);
  }, 60_000);

  it('exits 2 and names the bad line, importing the rest', () => {
    const file = join(dir, 'bad.jsonl');
    writeFileSync(
      file,
      `${readFileSync(realLog, 'utf8').split('\n').slice(0, 6).join('\n')}\n{oops\n`,
    );
    const result = cli('import', file, '--workspace', join(dir, 'c'));
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/RunLogLineError: line 7: not JSON/);
    expect(result.stdout).toMatch(/1 runs imported \(rlm-log\)/);
  }, 60_000);

  it('stores a synthetic run of 512 agents and 5,000 turns', () => {
    const result = cli('synthetic', '--workspace', join(dir, 'e'), '--json');
    expect(result.status).toBe(0);
    const { runId } = JSON.parse(result.stdout) as { runId: string };
    const exported = cli('export', runId, '--workspace', join(dir, 'e'));
    const header = JSON.parse(exported.stdout.split('\n')[0] ?? '') as {
      run: { agents: number; turns: number };
    };
    expect(header.run).toMatchObject({ agents: 512, turns: 5000, source: 'synthetic' });
  }, 60_000);

  it('fork: turns count from 1, and exactly one of --code and --response', () => {
    const zero = cli('fork', 'r', '--agent', '0', '--turn', '0', '--code', 'x.py');
    expect(zero.status).not.toBe(0);
    expect(zero.stderr).toContain('turns are numbered from 1');
    const neither = cli('fork', 'r', '--agent', '0', '--turn', '1', '--workspace', join(dir, 'f'));
    expect(neither.status).not.toBe(0);
    expect(neither.stderr).toContain('give exactly one of --code FILE or --response FILE');
    const file = join(dir, 'code.py');
    writeFileSync(file, 'FINAL_VAR(1)');
    const missing = cli(
      'fork',
      'nope',
      '--agent',
      '0',
      '--turn',
      '1',
      '--code',
      file,
      '--workspace',
      join(dir, 'f'),
    );
    expect(missing.status).toBe(1);
    expect(missing.stderr).toMatch(/RunNotFoundError: There is no run 'nope'/);
  }, 60_000);

  it('refuses an unknown format name', () => {
    const result = cli('import', realLog, '--format', 'csv', '--workspace', join(dir, 'd'));
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain('expected auto, ours, rlm-log, skyrl, dspy, nano-rlm');
  });

  it('imports a nano-rlm sessions folder, naming a file in it that is not a log', () => {
    const sessions = join(dir, 'sessions');
    const root = join(sessions, 's1');
    mkdirSync(root, { recursive: true });
    writeFileSync(join(root, 'meta.json'), JSON.stringify({ model: 'm', status: 'done' }));
    const line = (value: unknown) => `${JSON.stringify(value)}\n`;
    writeFileSync(
      join(root, 'messages.jsonl'),
      line({ type: 'user', content: 'What is 2+2?', timestamp: 1 }) +
        line({ type: 'assistant', content: '4', timestamp: 2 }) +
        line({ type: 'done', answer: '4', timestamp: 2 }),
    );
    writeFileSync(join(sessions, 'stray.json'), '{"hello": 1}');
    const result = cli('import', sessions, '--workspace', join(dir, 'g'), '--json');
    expect(result.status).toBe(2);
    const report = JSON.parse(result.stdout) as {
      logs: Report[];
      failures: { source: string; name: string }[];
    };
    expect(report.logs.map((log) => [log.format, log.runs.length])).toEqual([['nano-rlm', 1]]);
    expect(report.failures).toEqual([
      expect.objectContaining({
        source: join(sessions, 'stray.json'),
        name: 'UnknownRunLogFormatError',
      }),
    ]);
    expect(result.stderr).toContain('stray.json: UnknownRunLogFormatError');
  }, 60_000);

  it('--follow prints a run as another tool writes it and ends at the final answer', async () => {
    const file = join(dir, 'live.jsonl');
    const lines = readFileSync(realLog, 'utf8').split('\n');
    // The real log's first run: metadata, run_context and its iterations up to the final answer.
    const end = lines.findIndex((text) => /"final_answer": ?"/.test(text));
    writeFileSync(file, `${lines.slice(0, 3).join('\n')}\n`);
    const child = spawn(
      process.execPath,
      [launcher, 'import', file, '--follow', '--idle', '20', '--workspace', join(dir, 'h')],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    const seen = (pattern: RegExp) =>
      expect.poll(() => stdout, { timeout: 20_000, interval: 100 }).toMatch(pattern);
    await seen(/ 0 {2}turn 1/);
    expect(stdout).not.toMatch(/answered/);
    for (const text of lines.slice(3, end + 1)) appendFileSync(file, `${text}\n`);
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
    expect(stdout).toMatch(/ 0 {2}answered /);
    expect(stdout).toMatch(/run done/);
    expect(stdout).toMatch(/1 runs followed; ended: answered/);
  }, 60_000);

  it('--follow ends a run that stops growing as interrupted, exit 3', () => {
    const file = join(dir, 'stalled.jsonl');
    const lines = readFileSync(realLog, 'utf8').split('\n');
    writeFileSync(file, `${lines.slice(0, 3).join('\n')}\n`);
    const result = cli(
      'import',
      file,
      '--follow',
      '--idle',
      '1',
      '--workspace',
      join(dir, 'i'),
      '--json',
    );
    expect(result.status).toBe(3);
    const state = JSON.parse(result.stdout) as { ended: string; runs: { status: string }[] };
    expect(state).toMatchObject({ ended: 'idle', runs: [{ status: 'interrupted' }] });
  }, 60_000);
});
