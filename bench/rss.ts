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

/** `exclude`: child processes that are not ours to count (a benchmark's fake server). */
export function peakRss(exclude: readonly number[] = []): {
  stop(): { totalBytes: number; mainBytes: number; childBytes: number };
} {
  let peak = { totalBytes: 0, mainBytes: 0, childBytes: 0 };
  const sample = () => {
    const mainBytes = process.memoryUsage.rss();
    const childBytes = childrenOf(process.pid)
      .filter((pid) => !exclude.includes(pid))
      .reduce((sum, pid) => sum + rssOf(pid), 0);
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
