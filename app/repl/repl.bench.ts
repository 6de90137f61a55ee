// Timing of the REPL for the benchmark script (issue 4: the loop's overhead budget is < 2 ms per
// turn beyond user code). Not a test: timings are reported, never asserted here.
import { RecordingLoop } from './recording-loop.ts';
import { ReplSandbox } from './sandbox.ts';

export interface ReplBenchResult {
  /** ms from ReplSandbox.start() until it accepts agents (process fork + Pyodide boot). */
  start_ms: number;
  /** Median and 95th percentile ms of run(agent, 'x = 1') once warm, end to end. */
  trivial_run_p50_ms: number;
  trivial_run_p95_ms: number;
  /** ms for 50 agents, all in flight, each blocked three times on a 200 ms rlm_query. */
  fifty_agents_ms: number;
  runs: number;
}

function percentile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

export async function benchRepl(runs = 1_000): Promise<ReplBenchResult> {
  const loop = new RecordingLoop();
  const started = performance.now();
  const repl = await ReplSandbox.start({ callbacks: loop });
  const startMs = performance.now() - started;
  try {
    await repl.createAgent('0', { p1: '### PAPER: A\n\nAbstract.\n\nBody.' });
    for (let i = 0; i < 50; i++) await repl.run('0', 'x = 1');
    const times: number[] = [];
    for (let i = 0; i < runs; i++) {
      const t = performance.now();
      await repl.run('0', 'x = 1');
      times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    const ids = Array.from({ length: 50 }, (_, i) => `0.${String(i)}`);
    await Promise.all(ids.map((id) => repl.createAgent(id, `context ${id}`)));
    loop.delayMs = 200;
    const code =
      "def ask(q):\n    return rlm_query(q)\nr = [rlm_query('a'), ask('b')] + [rlm_query(c) for c in 'c']";
    const fanOut = performance.now();
    await Promise.all(ids.map((id) => repl.run(id, code)));
    return {
      start_ms: startMs,
      trivial_run_p50_ms: percentile(times, 0.5),
      trivial_run_p95_ms: percentile(times, 0.95),
      fifty_agents_ms: performance.now() - fanOut,
      runs,
    };
  } finally {
    await repl.dispose();
  }
}
