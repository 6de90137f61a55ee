// ReplSandbox as the loop uses it: namespaces that persist per agent, caller errors, limits (time,
// output, memory), cancellation, and many agents suspended in child calls at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentBusyError, AgentExistsError, ReplLimitError, UnknownAgentError } from './errors.ts';
import { resolveLimits } from './limits.ts';
import { RecordingLoop } from './recording-loop.ts';
import { ReplSandbox } from './sandbox.ts';

const loop = new RecordingLoop();
let repl: ReplSandbox;

beforeAll(async () => {
  repl = await ReplSandbox.start({
    callbacks: loop,
    limits: { timeoutMs: 1_000, maxOutputChars: 2_000, maxMemoryBytes: 256 * 1024 * 1024 },
  });
  await repl.createAgent('a', 'context of a');
  await repl.createAgent('b', 'context of b');
}, 60_000);

afterAll(async () => {
  await repl.dispose();
});

describe('namespaces', () => {
  it('keeps each agent its own variables between runs and reports them', async () => {
    await repl.run('a', 'x = [1, 2, 3]\ndef f():\n    return len(x)');
    await repl.run('b', "x = 'bee'");
    const a = await repl.run('a', 'print(f(), x)');
    expect(a.stdout).toBe('3 [1, 2, 3]\n');
    expect(a.variables).toContainEqual({ name: 'x', type: 'list', repr: '[1, 2, 3]' });
    expect(a.variables.map((v) => v.name)).not.toContain('context');
    expect((await repl.run('b', 'print(x)')).stdout).toBe('bee\n');
    expect(a.durationMs).toBeGreaterThan(0);
  });

  it('reports a Python error with a traceback of the model code only, and the next run works', async () => {
    const failed = await repl.run('a', 'def g(d):\n    return d["missing"]\ng({})');
    expect(failed.error).toEqual({ type: 'KeyError', message: "'missing'" });
    expect(failed.stderr).toBe(
      'Traceback (most recent call last):\n  File "<code>", line 3, in <module>\n    g({})\n' +
        '  File "<code>", line 2, in g\n    return d["missing"]\nKeyError: \'missing\'\n',
    );
    const syntax = await repl.run('a', 'print(1');
    expect(syntax.error?.type).toBe('SyntaxError');
    expect((await repl.run('a', 'print("fine")')).stdout).toBe('fine\n');
  });

  it('rejects caller mistakes with named errors', async () => {
    await expect(repl.run('nobody', 'x = 1')).rejects.toBeInstanceOf(UnknownAgentError);
    await expect(repl.createAgent('a', 'again')).rejects.toBeInstanceOf(AgentExistsError);
    loop.delayMs = 50;
    const first = repl.run('a', "rlm_query('slow')");
    await expect(repl.run('a', 'x = 1')).rejects.toBeInstanceOf(AgentBusyError);
    await first;
    loop.delayMs = 0;
    await repl.createAgent('temp', 't');
    repl.disposeAgent('temp');
    await expect(repl.run('temp', 'x = 1')).rejects.toBeInstanceOf(UnknownAgentError);
    expect(() => resolveLimits({ maxMemoryBytes: 1 })).toThrow(ReplLimitError);
  });
});

describe('shared contexts', () => {
  it('gives agents with the same context one copy each can change without touching the others', async () => {
    const papers = { p1: '### PAPER: One\n\nText one.', p2: '### PAPER: Two\n\nText two.' };
    await Promise.all(['s1', 's2', 's3'].map((id) => repl.createAgent(id, papers)));
    const changed = await repl.run('s1', "context['p1'] = 'mine'\nprint(sorted(context))");
    expect(changed.stdout).toBe("['p1', 'p2']\n");
    expect((await repl.run('s1', "print(context['p1'][:9])")).stdout).toBe('### PAPER\n');
    expect(
      (await repl.run('s2', "print(context['p1'][:9], len(search(context, 'two')))")).stdout,
    ).toBe('### PAPER 1\n');
    for (const id of ['s1', 's2', 's3']) repl.disposeAgent(id);
    // The last agent gone, the interpreter forgot the context; a new agent sends it again.
    await repl.createAgent('s4', papers);
    expect((await repl.run('s4', 'print(len(context))')).stdout).toBe('2\n');
    repl.disposeAgent('s4');
  });
});

describe('limits', () => {
  it('interrupts an infinite loop at the time limit; the agent and the others keep working', async () => {
    const looped = await repl.run('a', 'n = 0\nwhile True:\n    n += 1');
    expect(looped.error?.type).toBe('ExecutionTimeout');
    expect(looped.error?.message).toContain('1 s time limit');
    expect(looped.durationMs).toBeLessThan(2_500);
    const swallowed = await repl.run(
      'a',
      'while True:\n    try:\n        pass\n    except BaseException:\n        pass',
    );
    expect(swallowed.error?.type).toBe('ExecutionTimeout');
    expect((await repl.run('a', 'print(n > 0)')).stdout).toBe('True\n');
    expect((await repl.run('b', 'print(x)')).stdout).toBe('bee\n');
  });

  it('does not charge time spent suspended in a child call', async () => {
    loop.delayMs = 1_200;
    const result = await repl.run('a', "r = rlm_query('long child')\nprint(r)");
    loop.delayMs = 0;
    expect(result.error).toBeNull();
    expect(result.durationMs).toBeGreaterThan(1_150);
  });

  it('caps printed output and says how much was cut', async () => {
    const result = await repl.run('a', "for i in range(100):\n    print('y' * 99)");
    expect(result.truncated).toBe(true);
    expect(result.stdout.length).toBe(2_000);
    expect(result.stderr).toContain(
      '[REPL output capped at 2,000 characters: 8,000 more were cut]',
    );
  });
});

// Its own interpreter with a generous time limit: on a loaded machine, building 256 MiB of strings
// can take longer than the 1 s the other tests need, and this test is about memory, not time.
describe('memory', () => {
  let roomy: ReplSandbox;
  beforeAll(async () => {
    roomy = await ReplSandbox.start({
      callbacks: loop,
      limits: { timeoutMs: 30_000, maxOutputChars: 2_000, maxMemoryBytes: 256 * 1024 * 1024 },
    });
    await roomy.createAgent('a', 'context of a');
    await roomy.createAgent('b', 'context of b');
  }, 60_000);
  afterAll(async () => {
    await roomy.dispose();
  });

  it('turns a memory bomb into MemoryError, drops what it bound, and leaves memory for others', async () => {
    const bomb = await roomy.run(
      'a',
      "big = []\nwhile True:\n    big.append('z' * (32 * 10**6) + str(len(big)))",
    );
    expect(bomb.error?.type).toBe('MemoryError');
    expect(bomb.error?.message).toContain('256 MiB');
    expect(bomb.stderr).toContain('were dropped to free it: big');
    const other = await roomy.run('b', "chunk = 'q' * (64 * 10**6)\nprint(len(chunk))\ndel chunk");
    expect(other.stdout).toBe('64000000\n');
  });
});

describe('cancellation', () => {
  it('stops code that is computing', async () => {
    const controller = new AbortController();
    setTimeout(() => {
      controller.abort();
    }, 50);
    const result = await repl.run('a', 'while True:\n    pass', controller.signal);
    expect(result.error?.type).toBe('ExecutionCancelled');
    expect(result.durationMs).toBeLessThan(900);
  });

  it('stops code waiting on a child call without waiting for the child', async () => {
    loop.delayMs = 5_000;
    const controller = new AbortController();
    setTimeout(() => {
      controller.abort();
    }, 50);
    const result = await repl.run(
      'a',
      "try:\n    rlm_query('forever')\nexcept Exception:\n    print('swallowed')",
      controller.signal,
    );
    loop.delayMs = 0;
    expect(result.error?.type).toBe('ExecutionCancelled');
    expect(result.stdout).toBe('');
    expect(result.durationMs).toBeLessThan(1_000);
  });
});

describe('concurrency', () => {
  it('runs 50 agents each blocked three times on a 200 ms child call, all in flight at once', async () => {
    const ids = Array.from({ length: 50 }, (_, i) => `c${String(i)}`);
    await Promise.all(ids.map((id) => repl.createAgent(id, `context ${id}`)));
    let inFlight = 0;
    let peak = 0;
    loop.answer = async (agentId, prompt) => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      await new Promise((resolve) => setTimeout(resolve, 200));
      inFlight--;
      return `${agentId}/${prompt}`;
    };
    const code =
      "def ask(q):\n    return rlm_query(q)\nr = [rlm_query('top'), ask('nested')] + [rlm_query(f'c{i}') for i in range(1)]\nprint(r)";
    const started = performance.now();
    const results = await Promise.all(ids.map((id) => repl.run(id, code)));
    const wall = performance.now() - started;
    expect(results.every((r) => r.error === null)).toBe(true);
    expect(results[7]?.stdout).toBe("['c7/top', 'c7/nested', 'c7/c0']\n");
    expect(peak).toBe(50);
    expect(wall).toBeLessThan(2_000);
  });
});
