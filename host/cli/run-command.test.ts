// `rlm-studio run` as a user runs it: JSON lines ending in run.finished, and a run whose process
// is killed mid-way leaves a readable log that the next open marks as interrupted.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunEvent } from '../../app/api/index.ts';
import { PaperLibrary } from '../../app/papers/index.ts';
import { openWorkspace, RunStore } from '../../app/store/index.ts';

const launcher = new URL('../../bin/rlm-studio.js', import.meta.url).pathname;
const qasper = new URL(
  '../../../shared/data/qasper/qasper_test_v0.3_subset_papers_with_pdf.json',
  import.meta.url,
).pathname;
const repl = (code: string) => '```repl\n' + code + '\n```';

let dir: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rlm-run-cli-'));
  const workspace = openWorkspace(join(dir, 'ws'));
  const library = new PaperLibrary(workspace.db);
  await library.importPaths('qasper', [qasper]);
  await library.dispose();
  workspace.close();
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('rlm-studio run', () => {
  it('streams JSON events whose last line is run.finished with status, agents and answer', () => {
    const script = join(dir, 'quick.json');
    writeFileSync(
      script,
      JSON.stringify({
        '0': [
          repl(
            "hits = search(context, 'relative position')\nFINAL_VAR([s for v in hits.values() for s in v][:1])",
          ),
        ],
      }),
    );
    const result = spawnSync(
      process.execPath,
      [
        launcher,
        '--workspace',
        join(dir, 'ws'),
        'run',
        '--set',
        'qasper',
        '--question',
        'What is new?',
        '--model',
        `scripted:${script}`,
        '--json',
      ],
      { encoding: 'utf8', timeout: 120_000 },
    );
    expect(result.status).toBe(0);
    const lines = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as RunEvent);
    const last = lines.at(-1);
    expect(last).toMatchObject({ kind: 'run.finished', status: 'done', agents: 1 });
    if (last?.kind !== 'run.finished') throw new Error('no run.finished');
    expect(Array.isArray(last.answer)).toBe(true);
    expect(String((last.answer as string[])[0])).toMatch(/relative position/i);
  }, 120_000);

  it('fails with a non-zero exit and the reason when the model runs out of script', () => {
    const script = join(dir, 'short.json');
    writeFileSync(script, JSON.stringify({ '0': [repl('x = 1')] }));
    const result = spawnSync(
      process.execPath,
      [
        launcher,
        '--workspace',
        join(dir, 'ws'),
        'run',
        '--set',
        'qasper',
        '--question',
        'q',
        '--model',
        `scripted:${script}`,
      ],
      { encoding: 'utf8', timeout: 120_000 },
    );
    expect(result.status).not.toBe(0);
    expect(result.stderr).toMatch(/ScriptExhaustedError/);
  }, 120_000);

  it('leaves a readable log marked interrupted when its process is killed mid-run', async () => {
    const script = join(dir, 'slow.json');
    const turns = Array.from({ length: 20 }, (_, i) => repl(`step = ${i}`));
    writeFileSync(script, JSON.stringify({ delayMs: 150, responses: { '0': turns } }));
    const child = spawn(
      process.execPath,
      [
        launcher,
        '--workspace',
        join(dir, 'ws'),
        'run',
        '--set',
        'qasper',
        '--question',
        'slow',
        '--model',
        `scripted:${script}`,
        '--max-turns',
        '20',
        '--json',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let runId = '';
    await new Promise<void>((resolve) => {
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const events = out
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line) as RunEvent);
        const started = events.find((event) => event.kind === 'run.started');
        if (started?.kind === 'run.started') runId = started.runId;
        if (events.filter((event) => event.kind === 'repl.output').length >= 3) {
          child.kill('SIGKILL');
          resolve();
        }
      });
    });
    await new Promise((resolve) => child.once('exit', resolve));
    const workspace = openWorkspace(join(dir, 'ws'));
    const store = new RunStore(workspace.db);
    const run = store.get(runId);
    expect(run.status).toBe('interrupted');
    const events = store.events(runId);
    expect(events[0]?.kind).toBe('run.started');
    expect(events.some((event) => event.kind === 'run.finished')).toBe(false);
    expect(events.filter((event) => event.kind === 'turn.started').length).toBeGreaterThanOrEqual(
      2,
    );
    workspace.close();
  }, 120_000);
});
