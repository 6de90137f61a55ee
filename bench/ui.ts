// `npm run bench:ui`: the Run view in headless Chromium (Debian's, through playwright-core) against
// the real `rlm-studio serve`. (1) A stored synthetic run of 512 agents and 5,000 turns: time from
// opening its link until the tree is drawn, and until a click on the root shows its turns (cold: the
// view's code loads too; warm: opened again). (2) A live synthetic run at 100 events/s: frames per
// second (requestAnimationFrame over 10 s), the longest frame gap, long tasks. (3) The renderer's
// memory: JS heap (CDP) and the renderer process's peak RSS. Page code is passed as strings (this
// file is type-checked without the DOM library). Ends with one JSON line of figures.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { serveApp } from '../e2e/harness.ts';

const liveSeconds = Number(process.env.BENCH_UI_LIVE_SECONDS ?? 10);
const eventsPerSecond = 100;
const mb = (bytes: number) => Math.round((bytes / 2 ** 20) * 10) / 10;
const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;

interface OpenTimes {
  treeMs: number;
  interactiveMs: number;
  logMs: number;
  foldMs: number;
  drawMs: number;
  /** From the click on the root to its turns painted. */
  clickMs: number;
}

/** RSS of every Chromium renderer process started for `userDataDir` (descendants of its browser). */
function rendererRss(userDataDir: string): number[] {
  const procs = new Map<number, { ppid: number; cmd: string }>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const cmd = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ');
      procs.set(Number(entry), { ppid, cmd });
    } catch {
      // The process ended while we looked.
    }
  }
  const browsers = new Set(
    [...procs]
      .filter(([, p]) => p.cmd.includes(userDataDir) && !p.cmd.includes('--type='))
      .map(([pid]) => pid),
  );
  const descends = (pid: number): boolean => {
    for (
      let at = procs.get(pid)?.ppid, hops = 0;
      at !== undefined && hops < 8;
      at = procs.get(at)?.ppid, hops++
    )
      if (browsers.has(at)) return true;
    return false;
  };
  return [...procs]
    .filter(([pid, p]) => p.cmd.includes('--type=renderer') && descends(pid))
    .map(([pid]) => {
      const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${String(pid)}/status`, 'utf8'))?.[1];
      return kb ? Number(kb) * 1024 : 0;
    });
}

// The machine may be shared: the load average before the run says how to read the times.
const loadBefore = loadavg()[0] ?? 0;
console.log(`load average (1 min) before the run: ${loadBefore.toFixed(2)}`);
const app = await serveApp();
const userDataDir = mkdtempSync(join(tmpdir(), 'rlm-bench-ui-'));
const context = await chromium.launchPersistentContext(userDataDir, {
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  headless: true,
  viewport: { width: 1440, height: 900 },
  args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
});
let peakRendererRss = 0;
const rssTimer = setInterval(() => {
  peakRendererRss = Math.max(peakRendererRss, ...rendererRss(userDataDir));
}, 100);

try {
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Performance.enable');
  const jsHeap = async () => {
    const { metrics } = await cdp.send('Performance.getMetrics');
    return metrics.find((metric) => metric.name === 'JSHeapUsedSize')?.value ?? 0;
  };
  await page.goto(app.url);
  await page.getByTestId('view-papers').waitFor();

  // A raw request over a second socket of the page (same origin, so the auth cookie goes along).
  const call = async <T>(command: string, payload: unknown): Promise<T> =>
    page.evaluate<T>(`new Promise((resolve, reject) => {
      const socket = new WebSocket(location.origin.replace(/^http/, 'ws') + '/api');
      socket.onopen = () => socket.send(JSON.stringify({ kind: 'request', id: 1, command: ${JSON.stringify(command)}, payload: ${JSON.stringify(payload)} }));
      socket.onmessage = (message) => {
        const frame = JSON.parse(message.data);
        if (frame.kind !== 'response') return;
        socket.close();
        frame.ok ? resolve(frame.result) : reject(new Error(frame.error.name + ': ' + frame.error.message));
      };
      socket.onerror = () => reject(new Error('socket failed'));
    })`);

  const stored = await call<{ runId: string; events: number }>('runs.synthetic', {
    agents: 512,
    turns: 5000,
  });
  console.log(`stored synthetic run ${stored.runId}: ${String(stored.events)} events`);

  /** Opens the run by its link; resolves with ms until the tree shows and until a click answers. */
  const openStored = () =>
    page.evaluate<OpenTimes>(`(async () => {
      const until = (test) => new Promise((resolve) => {
        const check = () => { const found = test(); if (found) resolve(found); else requestAnimationFrame(check); };
        check();
      });
      const start = performance.now();
      location.hash = '#/run?run=${stored.runId}';
      const root = await until(() => document.querySelector('[data-testid="agent-tree"][data-agents="512"] [data-testid="agent-node"][data-agent="0"]'));
      const treeMs = performance.now() - start;
      const mark = (name) => (performance.getEntriesByName(name).at(-1)?.startTime ?? NaN) - start;
      const logMs = mark('run-open:log') - mark('run-open:request');
      const foldMs = mark('run-open:folded') - mark('run-open:log');
      const drawMs = treeMs - mark('run-open:folded');
      const clicked = performance.now();
      root.closest('.react-flow__node').dispatchEvent(new MouseEvent('click', { bubbles: true }));
      await until(() => document.querySelector('[data-testid="turn-inspector"][data-agent="0"] [data-testid="turn-detail"]'));
      await new Promise((resolve) => requestAnimationFrame(() => resolve()));
      const interactiveMs = performance.now() - start;
      return { treeMs, interactiveMs, logMs, foldMs, drawMs, clickMs: performance.now() - clicked };
    })()`);

  const opens: OpenTimes[] = [];
  for (let attempt = 0; attempt < 4; attempt++) {
    await page.evaluate(`location.hash = '#/runs'`);
    await page.getByTestId('view-runs').waitFor();
    const open = await openStored();
    opens.push(open);
    console.log(
      `open ${attempt === 0 ? 'cold' : 'warm'}: tree drawn ${open.treeMs.toFixed(0)} ms (log fetched and checked ${open.logMs.toFixed(0)}, folded ${open.foldMs.toFixed(0)}, drawn ${open.drawMs.toFixed(0)}), root's turns shown ${open.interactiveMs.toFixed(0)} ms (click answered in ${open.clickMs.toFixed(0)})`,
    );
  }
  const heapStored = await jsHeap();
  const cold = opens[0] ?? {
    treeMs: NaN,
    interactiveMs: NaN,
    logMs: NaN,
    foldMs: NaN,
    drawMs: NaN,
  };
  const warm = opens.slice(1);
  const warmInteractive = median(warm.map((open) => open.interactiveMs));
  console.log(`JS heap with the stored run open: ${String(mb(heapStored))} MB`);

  // Keyboard responsiveness on the big tree: 20 agent moves, time until the last one is shown.
  const keysMs = await page.evaluate<number>(`(async () => {
    const start = performance.now();
    for (let i = 0; i < 20; i++) window.dispatchEvent(new KeyboardEvent('keydown', { key: 'l', bubbles: true }));
    await new Promise((resolve) => {
      const check = () => { if (location.hash.includes('agent=0.') && document.querySelector('[data-testid="turn-inspector"]')?.getAttribute('data-agent') !== '0') resolve(); else requestAnimationFrame(check); };
      check();
    });
    await new Promise((resolve) => requestAnimationFrame(() => resolve()));
    return performance.now() - start;
  })()`);
  console.log(`20 keyboard moves through the 512-agent tree: ${keysMs.toFixed(0)} ms`);

  // (2) Live at 100 events/s.
  const live = await call<{ runId: string; events: number }>('runs.synthetic', {
    agents: 512,
    turns: 5000,
    seed: 2,
    live: true,
    eventsPerSecond,
  });
  await page.evaluate(`location.hash = '#/run?run=${live.runId}'`);
  await page.getByTestId('agent-tree').waitFor();
  await page.waitForTimeout(1500);
  const frames = await page.evaluate<{
    fps: number;
    worstGapMs: number;
    longTasks: number;
    longTaskMs: number;
    agentsBefore: number;
    agentsAfter: number;
  }>(`(async () => {
    const tree = () => Number(document.querySelector('[data-testid="agent-tree"]')?.getAttribute('data-agents') ?? 0);
    const agentsBefore = tree();
    let longTasks = 0, longTaskMs = 0;
    const observer = new PerformanceObserver((list) => { for (const entry of list.getEntries()) { longTasks++; longTaskMs += entry.duration; } });
    try { observer.observe({ type: 'longtask' }); } catch {}
    let frames = 0, worstGapMs = 0;
    const start = performance.now();
    let last = start;
    await new Promise((resolve) => {
      const tick = (now) => {
        frames++;
        worstGapMs = Math.max(worstGapMs, now - last);
        last = now;
        if (now - start < ${String(liveSeconds * 1000)}) requestAnimationFrame(tick); else resolve();
      };
      requestAnimationFrame(tick);
    });
    observer.disconnect();
    const seconds = (performance.now() - start) / 1000;
    return { fps: frames / seconds, worstGapMs, longTasks, longTaskMs, agentsBefore, agentsAfter: tree() };
  })()`);
  const heapLive = await jsHeap();
  console.log(
    `live at ${String(eventsPerSecond)} events/s for ${String(liveSeconds)} s: ${frames.fps.toFixed(1)} fps, worst frame gap ${frames.worstGapMs.toFixed(0)} ms, ${String(frames.longTasks)} long tasks (${frames.longTaskMs.toFixed(0)} ms); agents drawn ${String(frames.agentsBefore)} -> ${String(frames.agentsAfter)}`,
  );
  await call('runs.cancel', { runId: live.runId });
  peakRendererRss = Math.max(peakRendererRss, ...rendererRss(userDataDir));
  console.log(
    `renderer memory: JS heap ${String(mb(heapLive))} MB (live), peak renderer RSS ${String(mb(peakRendererRss))} MB`,
  );

  const figures = {
    load_average_1m_before: Number(loadBefore.toFixed(2)),
    stored_agents: 512,
    stored_turns: 5000,
    stored_events: stored.events,
    open_cold_tree_ms: Math.round(cold.treeMs),
    open_cold_log_ms: Math.round(cold.logMs),
    open_cold_fold_ms: Math.round(cold.foldMs),
    open_cold_draw_ms: Math.round(cold.drawMs),
    open_cold_interactive_ms: Math.round(cold.interactiveMs),
    open_warm_interactive_ms: Math.round(warmInteractive),
    keyboard_20_moves_ms: Math.round(keysMs),
    live_events_per_s: eventsPerSecond,
    live_fps: Math.round(frames.fps * 10) / 10,
    live_worst_frame_gap_ms: Math.round(frames.worstGapMs),
    live_long_tasks: frames.longTasks,
    live_agents_drawn: frames.agentsAfter,
    js_heap_stored_mb: mb(heapStored),
    js_heap_live_mb: mb(heapLive),
    renderer_peak_rss_mb: mb(peakRendererRss),
    pass_open_under_1500_ms: cold.interactiveMs < 1500,
    pass_live_at_least_30_fps: frames.fps >= 30,
    pass_memory_under_500_mb: peakRendererRss < 500 * 2 ** 20,
  };
  console.log(JSON.stringify(figures));
} catch (error) {
  console.error(error);
  process.exitCode = 1;
} finally {
  clearInterval(rssTimer);
  await context.close();
  rmSync(userDataDir, { recursive: true, force: true });
  await app.stop();
}
