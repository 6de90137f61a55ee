// Peak resident memory of this process and its child processes (the REPL runs in one), sampled
// from /proc every 50 ms while a measurement runs.
import { readdirSync, readFileSync } from 'node:fs';

function rssOf(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = /VmRSS:\s+(\d+)/.exec(status)?.[1];
    return kb ? Number(kb) * 1024 : 0;
  } catch {
    return 0;
  }
}

// Direct children, from each /proc/PID/task/TID/children (cheap), else by scanning every process.
function childrenOf(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((task) =>
      readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8')
        .split(' ')
        .filter((entry) => entry.trim() !== '')
        .map(Number),
    );
  } catch {
    return scanChildrenOf(pid);
  }
}

function scanChildrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (parent === pid) children.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return children;
}

/** CPU time (user + system, ms) a process has used so far; 0 once it is gone. */
export function cpuMsOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime, in clock ticks (100 per second on Linux).
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return 0;
  }
}

/**
 * CPU time used by this process, its child processes (the REPL's interpreters) and the given
 * others (a benchmark's server) between start and stop: where a run's time went on a busy box.
 */
export function cpuUse(others: readonly number[]): {
  stop(): { mainMs: number; childrenMs: number; othersMs: number };
} {
  const children = childrenOf(process.pid).filter((pid) => !others.includes(pid));
  const before = new Map([...children, ...others].map((pid) => [pid, cpuMsOf(pid)]));
  const main = process.cpuUsage();
  const spent = (pids: readonly number[]) =>
    pids.reduce((sum, pid) => sum + cpuMsOf(pid) - (before.get(pid) ?? 0), 0);
  return {
    stop() {
      const used = process.cpuUsage(main);
      return {
        mainMs: (used.user + used.system) / 1000,
        childrenMs: spent(children),
        othersMs: spent(others),
      };
    },
  };
}

/** `exclude`: child processes that are not ours to count (a benchmark's fake server). */
export function peakRss(exclude: readonly number[] = []): {
  stop(): { totalBytes: number; mainBytes: number; childBytes: number };
} {
  let peak = { totalBytes: 0, mainBytes: 0, childBytes: 0 };
  // Listing the children reads a /proc file per thread of this process (0.5 ms on the event loop
  // being measured), so it is done once a second; a sample reads one file per child.
  let children: number[] = [];
  let samples = 0;
  const sample = () => {
    if (samples++ % 20 === 0)
      children = childrenOf(process.pid).filter((pid) => !exclude.includes(pid));
    const mainBytes = process.memoryUsage.rss();
    const childBytes = children.reduce((sum, pid) => sum + rssOf(pid), 0);
    if (mainBytes + childBytes > peak.totalBytes)
      peak = { totalBytes: mainBytes + childBytes, mainBytes, childBytes };
  };
  sample();
  const timer = setInterval(sample, 50);
  return {
    stop() {
      clearInterval(timer);
      sample();
      return peak;
    },
  };
}
