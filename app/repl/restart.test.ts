// The last resort: code the interrupt cannot stop (a C loop) or that kills Pyodide (a stack
// overflow) costs one interpreter restart; every agent keeps its context and gets a clear error.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RecordingLoop } from './recording-loop.ts';
import { ReplSandbox } from './sandbox.ts';

let repl: ReplSandbox;

beforeAll(async () => {
  repl = await ReplSandbox.start({
    callbacks: new RecordingLoop(),
    limits: { timeoutMs: 300 },
    collectTimeoutMs: 200,
    hangGraceMs: 300,
  });
  await repl.createAgent('looper', 'looper context');
  await repl.createAgent('bystander', 'bystander context');
}, 60_000);

afterAll(async () => {
  await repl.dispose();
});

describe('interpreter restarts', () => {
  it('kills an interpreter stuck in an uninterruptible C loop and restarts it for the next run', async () => {
    await repl.run('bystander', 'kept = 1');
    const stuck = await repl.run('looper', 'import itertools\nsum(itertools.repeat(1))');
    expect(stuck.error?.type).toBe('InterpreterRestarted');
    expect(stuck.error?.message).toContain('stopped responding');
    expect(repl.restarts).toBe(1);
    const next = await repl.run('looper', 'print(context)');
    expect(next.stdout).toBe('looper context\n');
    expect(next.stderr).toBe('');
    const bystander = await repl.run('bystander', 'print(context)\nprint(kept)');
    expect(bystander.stdout).toBe('bystander context\n');
    expect(bystander.stderr).toContain('note: the interpreter restarted');
    expect(bystander.error?.type).toBe('NameError');
  }, 30_000);

  it('survives a stack overflow from deeply nested data with one restart', async () => {
    const crashed = await repl.run(
      'looper',
      'x = []\nfor i in range(50000):\n    x = [x]\ny = repr(x)',
    );
    expect(crashed.error?.type).toBe('InterpreterRestarted');
    expect(crashed.error?.message).toContain('nesting too deep');
    expect((await repl.run('looper', 'print(1 + 1)')).stdout).toBe('2\n');
    expect(repl.restarts).toBe(2);
  }, 30_000);
});
